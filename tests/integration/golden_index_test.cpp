// golden_index_test.cpp: the index files every format version wrote (tests/golden/v<major>.<minor>,
// made by scripts/make-golden-index.sh with the scout of that version) still open with this
// library and give the search results recorded when they were written.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "scout/scout.hpp"

namespace fs = std::filesystem;

namespace {

fs::path golden_dir() {
    const char* src = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(src != nullptr);
    return fs::path(src) / "tests" / "golden";
}

/// The embedder each golden file was written with, named by the file.
std::shared_ptr<scout::Embedder> embedder_for(const std::string& stem) {
    if (stem == "hashing") {
        return std::make_shared<scout::HashingEmbedder>(8);
    }
    if (stem == "static") {
        auto loaded = scout::StaticEmbedder::load_default();
        REQUIRE(loaded.ok());
        return loaded.value();
    }
    REQUIRE(stem == "bm25");
    return nullptr;
}

/// "v<major>.<minor>", the name of a version's folder.
std::string version_name(unsigned major, unsigned minor) {
    std::ostringstream out;
    out << 'v' << major << '.' << minor;
    return out.str();
}

/// Every query of `expected` (query TAB comma-separated top-5 names) gives those names.
void check_recorded_results(const scout::Searcher& searcher, const fs::path& expected_file) {
    std::ifstream expected(expected_file);
    std::string line;
    std::size_t queries = 0;
    while (std::getline(expected, line)) {
        const auto tab = line.find('\t');
        REQUIRE(tab != std::string::npos);
        const std::string query = line.substr(0, tab);
        scout::SearchOptions options;
        options.top_k = 5;
        auto result = searcher.search(query, options);
        REQUIRE(result.ok());
        std::string names;
        for (const auto& hit : result->hits) {
            if (!names.empty()) {
                names += ',';
            }
            names += hit.name;
        }
        INFO(query);
        CHECK(names == line.substr(tab + 1));
        ++queries;
    }
    CHECK(queries > 0);
}

}  // namespace

TEST_CASE("every format version's golden index files open and search as recorded",
          "[persistence][golden]") {
    const fs::path root = golden_dir();
    const std::string current = version_name(scout::kIndexFormatMajor, scout::kIndexFormatMinor);
    REQUIRE(fs::is_directory(root / current));  // a format change commits its golden files
    std::size_t files = 0;
    for (const auto& version : fs::directory_iterator(root)) {
        if (!version.is_directory()) {
            continue;
        }
        const std::string name = version.path().filename().string();
        for (const char* stem : {"bm25", "hashing", "static"}) {
            const fs::path file = version.path() / (std::string(stem) + ".scoutidx");
            INFO(file.string());
            REQUIRE(fs::exists(file));
            auto info = scout::inspect_index_file(file);
            REQUIRE(info.ok());
            CHECK(version_name(info->format_major, info->format_minor) == name);
            CHECK(info->warnings.empty());
            const auto embedder = embedder_for(stem);
            // A fitted static model's id extends the model's own with the catalog's fingerprint
            // ("...-idf<fingerprint>"), so the file is of this model when its id starts so.
            const bool same_model =
                embedder == nullptr || info->model_id.rfind(embedder->model_id(), 0) == 0;
            if (!same_model) {
                // Written with an earlier shipped model (the static model is replaced, not
                // kept): the current one refuses its vectors, and the file opens BM25-only.
                // Its BM25 part is intact: the same rankings as the BM25-only file of its version.
                auto refused = scout::Catalog::open(file, embedder);
                REQUIRE_FALSE(refused.ok());
                CHECK(refused.status().code() == scout::Errc::embedder_mismatch);
                auto bm25_only = scout::Catalog::open(file, nullptr);
                REQUIRE(bm25_only.ok());
                check_recorded_results(bm25_only->searcher(), version.path() / "bm25.expected.tsv");
                ++files;
                continue;
            }
            auto catalog = scout::Catalog::open(file, embedder);
            REQUIRE(catalog.ok());
            check_recorded_results(catalog->searcher(),
                                   version.path() / (std::string(stem) + ".expected.tsv"));
            ++files;
        }
    }
    CHECK(files >= 9);  // formats 1.1, 1.2 and 1.3 at least
}
