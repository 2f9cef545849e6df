// index_cli_test.cpp: `scout index`, `search --index` and `eval --index` through the real binary;
// a damaged index makes every command exit with code 2 and a message, never crash.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using Run = scout::testing::CommandRun;  // out holds stdout and stderr

Run run(const std::string& args) {
    return scout::testing::run_command(std::string(SCOUT_CLI_PATH) + " " + args + " 2>&1");
}

std::string source(const char* rel) {
    const char* src = std::getenv("SCOUT_SOURCE_DIR");
    REQUIRE(src != nullptr);
    return (fs::path(src) / rel).string();
}

}  // namespace

/// One index for the whole run (sections re-enter the test case); removed at exit.
struct SharedIndex {
    fs::path dir = fs::temp_directory_path() / ("scout-cli-index-" + std::to_string(::getpid()));
    std::string index = (dir / "enterprise.scoutidx").string();
    Run built;
    SharedIndex() {
        fs::create_directories(dir);
        built =
            run("index --catalog " + source("data/enterprise_catalog.json") + " --out " + index);
    }
    ~SharedIndex() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

TEST_CASE("scout index writes an index that search and eval read", "[cli][persistence]") {
    static SharedIndex shared;
    const fs::path& dir = shared.dir;
    const std::string& index = shared.index;
    const std::string catalog = source("data/enterprise_catalog.json");
    INFO(shared.built.out);
    REQUIRE(shared.built.code == 0);
    CHECK_THAT(shared.built.out, Catch::Contains("650 tools"));
    REQUIRE(fs::file_size(index) > 0);

    SECTION("search and eval give the same answers as from the catalog") {
        const Run from_index =
            run("search --index " + index + " --json --top-k 7 create a jira ticket");
        const Run from_catalog =
            run("search --catalog " + catalog + " --quiet --json --top-k 7 create a jira ticket");
        REQUIRE(from_index.code == 0);
        CHECK(from_index.out == from_catalog.out);

        const Run eval_index = run("eval --index " + index + " --quiet --queries " +
                                   source("data/queries-49.json") + " --json");
        const Run eval_catalog = run("eval --catalog " + catalog + " --quiet --queries " +
                                     source("data/queries-49.json") + " --json");
        REQUIRE(eval_index.code == 0);
        CHECK_THAT(eval_index.out, Catch::Contains("\"hit_at_5\""));
        // Same quality numbers (latencies differ run to run).
        const auto quality = [](const std::string& s) {
            return s.substr(0, s.find("\"latency_us\""));
        };
        CHECK(quality(eval_index.out) == quality(eval_catalog.out));
    }
    SECTION("search events go to --events as JSON lines") {
        const std::string events = (dir / "events.jsonl").string();
        REQUIRE(run("search --index " + index + " --events " + events + " list pods").code == 0);
        std::ifstream in(events);
        std::string line;
        REQUIRE(std::getline(in, line));
        CHECK_THAT(line, Catch::StartsWith("{\"event\":\"tool_search_completed\""));
        CHECK_THAT(line, Catch::Contains("\"query_hash\""));
    }
    SECTION("index settings are stored in the file, not given again") {
        const std::string tuned = (dir / "tuned.scoutidx").string();
        REQUIRE(run("index --catalog " + catalog + " --out " + tuned +
                    " --bm25 k1=0.9,b=0.4 --fusion weighted_rrf,bm25=2")
                    .code == 0);
        const Run a =
            run("search --index " + tuned + " --json --top-k 9 rotate the api credentials");
        const Run b =
            run("search --catalog " + catalog +
                " --quiet --bm25 k1=0.9,b=0.4 --fusion weighted_rrf,bm25=2 --json --top-k 9 "
                "rotate the api credentials");
        REQUIRE(a.code == 0);
        CHECK(a.out == b.out);
        CHECK(a.out !=
              run("search --index " + index + " --json --top-k 9 rotate the api credentials").out);
        const Run again = run("search --index " + tuned + " --bm25 k1=2 jira");
        CHECK(again.code == 2);
        CHECK_THAT(again.out, Catch::Contains("stored in the index file"));
    }
    SECTION("--option sets any setting by its table key, the same as its own flag") {
        const std::string keyed = (dir / "keyed.scoutidx").string();
        REQUIRE(run("index --catalog " + catalog + " --out " + keyed +
                    " --option bm25.k1=0.9,bm25.b=0.4,fusion.method=weighted_rrf,"
                    "fusion.bm25_weight=2")
                    .code == 0);
        const Run a =
            run("search --index " + keyed + " --json --top-k 9 rotate the api credentials");
        const Run b =
            run("search --catalog " + catalog +
                " --quiet --bm25 k1=0.9,b=0.4 --fusion weighted_rrf,bm25=2 --json --top-k 9 "
                "rotate the api credentials");
        REQUIRE(a.code == 0);
        CHECK(a.out == b.out);
        for (const char* bad :
             {"bm25.k3=1", "bm25.b=2", "dense.hnsw_m=1", "fusion.method=best", "bm25.k1"}) {
            CAPTURE(bad);
            const Run r = run("index --catalog " + catalog + " --out " +
                              (dir / "bad.scoutidx").string() + " --option " + bad);
            CHECK(r.code == 2);
            CHECK_THAT(r.out, Catch::Contains("--option"));
        }
        const Run listed = run("options");
        REQUIRE(listed.code == 0);
        CHECK_THAT(listed.out, Catch::Contains("dense.hnsw_m  whole 2..1024  default 16"));
    }
    SECTION("a different embedder is refused with exit code 2") {
        const Run r = run("search --index " + index + " --embedder hashing:64 jira");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("embedder"));
    }
    SECTION("damaged, truncated, missing and non-index files exit with code 2") {
        const std::string bad = (dir / "bad.scoutidx").string();
        fs::copy_file(index, bad, fs::copy_options::overwrite_existing);
        {
            std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(static_cast<std::streamoff>(fs::file_size(bad) / 2));
            f.put('\x7f');
        }
        for (const std::string& cmd :
             {"search --index " + bad + " jira",
              "eval --index " + bad + " --queries " + source("data/queries-49.json")}) {
            const Run r = run(cmd);
            INFO(cmd << "\n" << r.out);
            CHECK(r.code == 2);
            CHECK_THAT(r.out, Catch::Contains("corrupt"));
        }
        fs::resize_file(bad, 1000);
        CHECK(run("search --index " + bad + " jira").code == 2);
        CHECK(run("search --index " + (dir / "missing.scoutidx").string() + " jira").code == 2);
        const Run not_index = run("search --index " + catalog + " jira");
        CHECK(not_index.code == 2);
        CHECK_THAT(not_index.out, Catch::Contains("not a scout index"));
        CHECK(run("search --index " + index + " --catalog " + catalog + " jira").code == 2);
        CHECK(run("index --catalog " + catalog).code == 2);
    }
}
