// data_dir_test.cpp: where the shipped data is looked for: $SCOUT_DATA_DIR, then relative to the
// binary holding scout's code, never a folder of the build machine compiled in.
#include "util/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "scout/embedder.hpp"
#include "scout/token_counter.hpp"

namespace fs = std::filesystem;

TEST_CASE("scout's own binary is this test executable (scout is linked in statically)",
          "[data_dir]") {
    const fs::path own = scout::detail::own_binary_dir();
    REQUIRE_FALSE(own.empty());
    CHECK(own == fs::canonical("/proc/self/exe").parent_path());
}

TEST_CASE("data folders: SCOUT_DATA_DIR, then ../share/scout and share/scout of the binary",
          "[data_dir]") {
    const fs::path own = scout::detail::own_binary_dir();
    ::unsetenv("SCOUT_DATA_DIR");
    const auto dirs = scout::detail::data_dirs();
    REQUIRE(dirs.size() >= 2);
    CHECK(dirs.front() == (own.parent_path() / "share" / "scout"));  // lib/ or bin/ of a prefix
    CHECK(dirs.back() == (own / "share" / "scout"));                 // a bundle
    for (const fs::path& dir : dirs) {
        CHECK(dir.is_absolute());
    }

    ::setenv("SCOUT_DATA_DIR", "/opt/elsewhere/scout", 1);
    const auto with_env = scout::detail::data_dirs();
    REQUIRE(with_env.size() == dirs.size() + 1);
    CHECK(with_env[0] == fs::path("/opt/elsewhere/scout"));
    CHECK(scout::StaticEmbedder::default_model_candidates().front() ==
          "/opt/elsewhere/scout/" + std::string(scout::StaticEmbedder::kDefaultModelFile));
    ::unsetenv("SCOUT_DATA_DIR");
}

TEST_CASE("the model of a build tree is its staged copy, as in an install", "[data_dir]") {
    ::unsetenv("SCOUT_DATA_DIR");
    const std::string path = scout::StaticEmbedder::default_model_path();
    REQUIRE_FALSE(path.empty());
    // <build>/tests/<this test> finds <build>/share/scout: the layout of <prefix>/bin and
    // <prefix>/share/scout, not the checkout's data/.
    CHECK(fs::path(path).parent_path() ==
          scout::detail::own_binary_dir().parent_path() / "share" / "scout");
}

TEST_CASE("rank files: SCOUT_TOKENIZER_DIR, the data folders' tokenizer/, then the cache",
          "[data_dir]") {
    ::unsetenv("SCOUT_DATA_DIR");
    ::setenv("SCOUT_TOKENIZER_DIR", "/opt/ranks", 1);
    ::setenv("SCOUT_CACHE_DIR", "/opt/cache", 1);
    const auto dirs = scout::TokenCounter::default_rank_dirs();
    ::unsetenv("SCOUT_TOKENIZER_DIR");
    ::unsetenv("SCOUT_CACHE_DIR");
    const auto data = scout::detail::data_dirs();
    REQUIRE(dirs.size() == data.size() + 2);
    CHECK(dirs.front() == fs::path("/opt/ranks"));
    for (std::size_t i = 0; i < data.size(); ++i) {
        CHECK(dirs[i + 1] == data[i] / "tokenizer");
    }
    CHECK(dirs.back() == fs::path("/opt/cache/tokenizer"));
}
