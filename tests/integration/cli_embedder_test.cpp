// cli_embedder_test.cpp: the --embedder choices of the scout binary: a static model by path, a
// missing model (BM25 only, with a note on stderr), http option checking, https with and without
// the service's CA (then BM25 answers and degraded_reason says why), eval's embedding line; in a
// build without scout::http or scout::transformer, the refusal of their specs and its reason.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "built_components.hpp"
#include "support/http_embedder_fixtures.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_identity.hpp"

namespace {

using Run = scout::testing::CliRun;

Run run(const scout::test::TempDir& dir, const std::string& args) {
    return scout::testing::run_cli(SCOUT_CLI_PATH, args, dir.file("stderr.txt"));
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
    const Run r = run(dir,
                      "search --catalog " + catalog + " --embedder static:" + vectors +
                          " --json --mode dense forecast");
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
    const Run r = run(dir,
                      "search --catalog " + catalog +
                          " --embedder static:" + dir.file("missing.vec") + " --json forecast");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["degraded"] == true);
    CHECK(j["mode"] == "bm25");
    CHECK(r.err.find("static embedding model unavailable") != std::string::npos);
    REQUIRE_FALSE(j["matches"].empty());
    CHECK(j["matches"][0]["tool"] == "get_forecast");

    // GloVe, looked up in an empty cache directory (popen inherits the environment), is missing;
    // the default model ships in the checkout and needs no cache (and no network).
    ::setenv("SCOUT_CACHE_DIR", dir.file("empty-cache").c_str(), 1);
    const Run e = run(dir, "search --catalog " + catalog + " --embedder glove --json forecast");
    const Run shipped = run(dir, "search --catalog " + catalog + " --json forecast");
    ::unsetenv("SCOUT_CACHE_DIR");
    REQUIRE(e.code == 0);
    CHECK(nlohmann::json::parse(e.out)["degraded"] == true);
    CHECK(e.err.find("fetch.d/10-static-embeddings.sh") != std::string::npos);
    REQUIRE(shipped.code == 0);
    CHECK(nlohmann::json::parse(shipped.out)["degraded"] == false);
    CHECK(shipped.err.find("unavailable") == std::string::npos);
}

#if SCOUT_WITH_HTTP
TEST_CASE("scout --embedder http checks its options", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const Run no_url =
        run(dir, "search --catalog " + catalog + " --embedder http --embedder-model m q");
    CHECK(no_url.code == 2);
    CHECK(no_url.err.find("--embedder-url") != std::string::npos);
    const Run ftp = run(dir,
                        "search --catalog " + catalog +
                            " --embedder http --embedder-url ftp://x --embedder-model m q");
    CHECK(ftp.code == 2);
    CHECK(ftp.err.find("https://") != std::string::npos);
    const Run cleartext =
        run(dir,
            "search --catalog " + catalog +
                " --embedder http --embedder-url http://embeddings.example.com/v1 "
                "--embedder-model m --embedder-dimensions 4 --embedder-header 'X-Api-Key: k' q");
    CHECK(cleartext.code == 2);
    CHECK(cleartext.err.find("--embedder-allow-cleartext-key") != std::string::npos);
    const Run bad_header = run(dir,
                               "search --catalog " + catalog +
                                   " --embedder http --embedder-url http://127.0.0.1:1/v1 "
                                   "--embedder-model m --embedder-header 'no colon' q");
    CHECK(bad_header.code == 2);
    const Run bad_dim =
        run(dir,
            "search --catalog " + catalog +
                " --embedder http --embedder-url http://127.0.0.1:1 --embedder-model m "
                "--embedder-dimensions 0 q");
    CHECK(bad_dim.code == 2);
}

TEST_CASE("scout --embedder http over https: --embedder-ca trusts the service, else BM25 says why",
          "[cli][http]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const auto id = scout::test::make_self_signed(dir);
    REQUIRE_FALSE(id.cert_file.empty());
    scout::test::LoopbackServer service(
        [](const scout::test::Request& r) { return scout::test::vectors_for(r); }, &id);
    REQUIRE(service.ready());
    const std::string http = "search --catalog " + catalog +
                             " --embedder http --embedder-model m --embedder-url " + service.url() +
                             " --json ";
    const Run trusted = run(dir, http + "--embedder-ca " + id.cert_file + " forecast");
    INFO(trusted.err);
    REQUIRE(trusted.code == 0);
    const auto t = nlohmann::json::parse(trusted.out);
    CHECK(t["degraded"] == false);
    CHECK(t["mode"] == "hybrid");

    const Run untrusted = run(dir, http + "forecast");
    INFO(untrusted.err);
    REQUIRE(untrusted.code == 0);
    const auto u = nlohmann::json::parse(untrusted.out);
    CHECK(u["degraded"] == true);
    CHECK(u["mode"] == "bm25");
    CHECK(u["degraded_reason"].get<std::string>().find("untrusted") != std::string::npos);
    REQUIRE_FALSE(u["matches"].empty());
    CHECK(u["matches"][0]["tool"] == "get_forecast");
}
#endif

TEST_CASE("scout eval reports how many texts were embedded and how long it took", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string vectors = dir.write("vectors.txt", kVectors);
    const std::string queries = dir.write(
        "queries.json",
        R"({"queries":[{"id":"1","query":"weather forecast","relevant":[{"server":"weather","tool":"get_forecast"}]}]})");
    const Run r = run(
        dir,
        "eval --catalog " + catalog + " --queries " + queries + " --embedder static:" + vectors);
    REQUIRE(r.code == 0);
    // 3 documents and 1 query.
    CHECK(r.out.find("4 texts embedded in") != std::string::npos);
}

#if SCOUT_WITH_TRANSFORMER
TEST_CASE("scout search --embedder transformer:DIR runs the in-process encoder",
          "[cli][transformer]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const char* source = std::getenv("SCOUT_SOURCE_DIR");
    const std::string model =
        std::string(source != nullptr ? source : ".") + "/tests/fixtures/transformer/tiny-bert";
    const Run r = run(dir,
                      "search --catalog " + catalog + " --embedder transformer:" + model +
                          " --json --mode dense forecast");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["mode"] == "dense");
    CHECK(j["degraded"] == false);
    CHECK(j["matches"].size() == 3);
    // A model directory that does not load is an error, not a silent BM25 fallback.
    const Run bad = run(dir,
                        "search --catalog " + catalog +
                            " --embedder transformer:" + dir.file("nope") + " forecast");
    CHECK(bad.code == 2);
    CHECK(bad.err.find("not a model directory") != std::string::npos);
}
#endif

#if !SCOUT_WITH_HTTP || !SCOUT_WITH_TRANSFORMER
namespace {

/// The text with each run of whitespace as one space (the help wraps its lines).
std::string squashed(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const bool space = c == ' ' || c == '\n';
        if (!space || (!out.empty() && out.back() != ' ')) {
            out += space ? ' ' : c;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("a build without a component refuses its embedder spec and its help says why", "[cli]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string help = squashed(run(dir, "search --help").out);
    if (!SCOUT_WITH_HTTP) {
        CHECK(help.find(SCOUT_HTTP_HELP_NOTE) != std::string::npos);
        const Run r = run(dir,
                          "search --catalog " + catalog +
                              " --embedder http --embedder-url https://127.0.0.1:1/v1 "
                              "--embedder-model m forecast");
        CHECK(r.code == 2);
        CHECK(r.err.find("SCOUT_WITH_HTTP=OFF") != std::string::npos);
    }
    if (!SCOUT_WITH_TRANSFORMER) {
        CHECK(help.find(SCOUT_TRANSFORMER_HELP_NOTE) != std::string::npos);
        const Run r = run(dir,
                          "search --catalog " + catalog +
                              " --embedder transformer:" + dir.file("model") + " forecast");
        CHECK(r.code == 2);
        CHECK(r.err.find("SCOUT_WITH_TRANSFORMER=OFF") != std::string::npos);
    }
}
#endif
