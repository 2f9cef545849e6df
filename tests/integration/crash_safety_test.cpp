// crash_safety_test.cpp: a process killed (SIGKILL) in the middle of saving never leaves a
// broken index behind: the file at the target path always opens, as the old or the new version.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"
#include "scout/scout.hpp"

namespace fs = std::filesystem;

TEST_CASE("SIGKILL during save leaves a file that opens", "[persistence][crash]") {
    const char* src = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(src != nullptr);
    auto spec = scout::load_catalog_file(fs::path(src) / "data/enterprise_catalog.json");
    REQUIRE(spec.ok());
    auto catalog = scout::Catalog::create({}, std::make_shared<scout::HashingEmbedder>(512));
    REQUIRE(catalog.ok());
    REQUIRE(catalog->upsert_servers(spec.value()).ok());
    REQUIRE(catalog->commit().ok());

    const fs::path dir = fs::temp_directory_path() / ("scout-crash-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = dir / "big.scoutidx";
    REQUIRE(catalog->save(file).ok());
    const auto size = fs::file_size(file);
    INFO("index file of " << size << " bytes");
    REQUIRE(size > 1000000);

    std::mt19937 rng(3);
    const std::string server = spec->servers[0].name;
    for (int round = 0; round < 5; ++round) {
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            // Keep committing and saving new generations until killed.
            for (int i = 0;; ++i) {
                (void)catalog->upsert_tool(
                    server, {"crash_probe", "", "probe " + std::to_string(i), "", ""});
                (void)catalog->commit();
                (void)catalog->save(file);
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 60));
        REQUIRE(::kill(child, SIGKILL) == 0);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        REQUIRE(WIFSIGNALED(status));

        auto info = scout::inspect_index_file(file);
        INFO("round " << round);
        REQUIRE(info.ok());
        CHECK(info->generation >= 1);
        auto opened = scout::Catalog::open(file, std::make_shared<scout::HashingEmbedder>(512));
        REQUIRE(opened.ok());
        CHECK(opened->searcher().size() >= catalog->searcher().size());
        // A kill between create and rename may leave a temporary file; never a damaged target.
        for (const auto& entry : fs::directory_iterator(dir)) {
            if (entry.path() != file) {
                CHECK(entry.path().filename().string().find("big.scoutidx.tmp-") == 0);
                fs::remove(entry.path());
            }
        }
    }
    fs::remove_all(dir);
}
