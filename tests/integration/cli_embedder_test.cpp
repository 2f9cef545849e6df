// cli_embedder_test.cpp: the --embedder choices of the scout binary: a static model by path, a
// missing model (BM25 only, with a note on stderr), http option checking, eval's embedding line.
#include <array>
#include <cstdio>
#include <fstream>
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include "support/run_command.hpp"
#include <nlohmann/json.hpp>

#include "support/temp_dir.hpp"

namespace {

struct Run {
    int code = -1;
    std::string out;
    std::string err;
};

Run run(const scout::test::TempDir& dir, const std::string& args) {
    const std::string err_path = dir.file("stderr.txt");
    const auto r = scout::testing::run_command(std::string(SCOUT_CLI_PATH) + " " + args + " 2>" + err_path);
    std::ifstream f(err_path);
    return {r.code, r.out, std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>())};
}

constexpr const char* kCatalog = R"({"servers":[
  {"name":"weather","description":"Weather data","tools":[
    {"name":"get_forecast","description":"Get the weather forecast for a city"},
    {"name":"get_alerts","description":"List severe weather alerts"}]},
  {"name":"files","description":"File system","tools":[
    {"name":"read_file","description":"Read a file from disk"}]}]})";

constexpr const char* kVectors =
    "weather 0 0 1 0.2\nforecast 0 0 0.3 1\nfile 1 0 0 0\nread 0.8 0.2 0 0\ndisk 0.9 0 0.1 0\n"
    "alerts 0 0.2 0.8 0\nsevere 0 0.3 0.7 0\ncity 0.5 0.5 0 0\n";

}  // namespace

TEST_CASE("scout search --embedder static:PATH runs hybrid on the given vectors", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string vectors = dir.write("vectors.txt", kVectors);
    const Run r = run(dir, "search --catalog " + catalog + " --embedder static:" + vectors + " --json --mode dense forecast");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["mode"] == "dense");
    CHECK(j["degraded"] == false);
    REQUIRE_FALSE(j["matches"].empty());
    CHECK(j["matches"][0]["tool"] == "get_forecast");
}

TEST_CASE("a missing static model leaves BM25 answering, with a note on stderr", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const Run r = run(dir, "search --catalog " + catalog + " --embedder static:" + dir.file("missing.vec") +
                               " --json forecast");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["degraded"] == true);
    CHECK(j["mode"] == "bm25");
    CHECK(r.err.find("static embedding model unavailable") != std::string::npos);
    REQUIRE_FALSE(j["matches"].empty());
    CHECK(j["matches"][0]["tool"] == "get_forecast");

    // The default model, looked up in an empty cache directory (popen inherits the environment).
    ::setenv("SCOUT_CACHE_DIR", dir.file("empty-cache").c_str(), 1);
    const Run e = run(dir, "search --catalog " + catalog + " --json forecast");
    ::unsetenv("SCOUT_CACHE_DIR");
    REQUIRE(e.code == 0);
    CHECK(nlohmann::json::parse(e.out)["degraded"] == true);
    CHECK(e.err.find("fetch.d/10-static-embeddings.sh") != std::string::npos);
}

TEST_CASE("scout --embedder http checks its options", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const Run no_url = run(dir, "search --catalog " + catalog + " --embedder http --embedder-model m q");
    CHECK(no_url.code == 2);
    CHECK(no_url.err.find("--embedder-url") != std::string::npos);
    const Run https = run(dir, "search --catalog " + catalog +
                                   " --embedder http --embedder-url https://x --embedder-model m q");
    CHECK(https.code == 2);
    const Run bad_dim = run(dir, "search --catalog " + catalog +
                                     " --embedder http --embedder-url http://127.0.0.1:1 --embedder-model m "
                                     "--embedder-dimensions 0 q");
    CHECK(bad_dim.code == 2);
}

TEST_CASE("scout eval reports how many texts were embedded and how long it took", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string vectors = dir.write("vectors.txt", kVectors);
    const std::string queries = dir.write(
        "queries.json", R"({"queries":[{"id":"1","query":"weather forecast","relevant":[{"server":"weather","tool":"get_forecast"}]}]})");
    const Run r = run(dir, "eval --catalog " + catalog + " --queries " + queries + " --embedder static:" + vectors);
    REQUIRE(r.code == 0);
    // 3 documents and 1 query.
    CHECK(r.out.find("4 texts embedded in") != std::string::npos);
}
