// cli_test.cpp: the scout binary: JSON output shapes, exit code 2 on bad input, never a crash.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace {

using Run = scout::testing::CommandRun;

Run run(const std::string& args) {
    return scout::testing::run_command(std::string(SCOUT_CLI_PATH) + " " + args + " 2>/dev/null");
}

std::filesystem::path write_temp(const std::string& name, const std::string& content) {
    // One directory per process: ctest runs the cases of this file in parallel processes.
    const auto dir =
        std::filesystem::temp_directory_path() / ("scout_cli_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

const char* kCatalog = R"({"servers":[
  {"name":"github","description":"Git hosting","tools":[
    {"name":"create_pull_request","description":"Open a pull request","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}}}},
    {"name":"list_issues","description":"List issues"}]},
  {"name":"teams","description":"Chat","tools":[{"name":"send_message","description":"Send a chat message"}]}]})";

const char* kQueries = R"({"queries":[
  {"id":"1","query":"open a pull request","relevant":[{"server":"github","tool":"create_pull_request"}]},
  {"id":"2","query":"send chat message","relevant":[{"server":"teams","tool":"send_message"}]},
  {"id":"3","query":"book a flight","relevant":[]}]})";

}  // namespace

TEST_CASE("scout search --json prints the documented shape", "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const Run r = run("search --catalog " + catalog.string() +
                      " --embedder hashing --json --top-k 2 open a pull request");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["query"] == "open a pull request");
    CHECK(j["mode"] == "hybrid");
    CHECK(j["degraded"] == false);
    REQUIRE(j["matches"].size() == 2);
    const auto& m = j["matches"][0];
    CHECK(m["name"] == "github_create_pull_request");
    CHECK(m["server"] == "github");
    CHECK(m["tool"] == "create_pull_request");
    CHECK(m["inputSchema"]["properties"].contains("repo"));
    CHECK(m["score"].is_number());
}

TEST_CASE("scout search --embedder none searches BM25 and is not degraded", "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const Run r = run("search --catalog " + catalog.string() + " --embedder none --json chat");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["degraded"] == false);
    CHECK(j["mode"] == "bm25");
    CHECK(j["matches"][0]["tool"] == "send_message");
}

// scout.h's one definition, shared with the C ABI and Python: degraded when, and only when, the
// dense branch was wanted (a mode asking for it, or the default with an embedder chosen) and
// could not run.
TEST_CASE("scout search is degraded only when the dense branch was wanted and absent", "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const std::string search = "search --catalog " + catalog.string() + " --json ";
    const auto asked =
        nlohmann::json::parse(run(search + "--embedder none --mode hybrid chat").out);
    CHECK(asked["degraded"] == true);
    CHECK(asked["mode"] == "bm25");
    CHECK(asked["degraded_reason"] == "no embedder configured");
    const auto missing = nlohmann::json::parse(
        run(search + "--embedder static:" + (catalog.parent_path() / "absent.swm").string() +
            " chat")
            .out);
    CHECK(missing["degraded"] == true);
    CHECK(missing["degraded_reason"].get<std::string>().find("static embedding model "
                                                             "unavailable") != std::string::npos);
    const auto healthy = nlohmann::json::parse(run(search + "chat").out);  // the shipped model
    CHECK(healthy["mode"] == "hybrid");
    CHECK(healthy["degraded"] == false);
}

TEST_CASE("scout eval --json reports metrics and catalog gaps", "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const auto queries = write_temp("queries.json", kQueries);
    const Run r = run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                      " --mode bm25 --json");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["queries"] == 3);
    CHECK(j["evaluable"] == 2);
    CHECK(j["catalog_gaps"] == 1);
    CHECK(j["hit_at_1"] == 1.0);
    CHECK(j["hit_at_5"] == 1.0);
    CHECK(j["mrr"] == 1.0);
    for (const char* key : {"recall_at_5", "ndcg_at_5"}) {
        CHECK(j[key] == 1.0);
    }
    CHECK(j["latency_us"]["p50"].is_number());
    CHECK(j["latency_us"]["p95"].is_number());
    CHECK(j["latency_us"]["p99"].is_number());
    const Run all = run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                        " --mode all --json");
    REQUIRE(all.code == 0);
    const auto rows = nlohmann::json::parse(all.out);
    REQUIRE(rows.size() == 4);  // bm25, dense, hybrid, and the union bound of bm25 and dense
    CHECK(rows[3]["mode"] == "union");
    // A relevant tool in either branch's top 5: at least each branch's own Hit@5.
    CHECK(rows[3]["hit_at_5"].get<double>() >= rows[0]["hit_at_5"].get<double>());
    CHECK(rows[3]["hit_at_5"].get<double>() >= rows[1]["hit_at_5"].get<double>());
    CHECK(rows[3]["hit_at_5"].get<double>() <= 1.0);
}

TEST_CASE("scout eval --ranks writes where each evaluable query's tool ranked", "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const auto queries = write_temp("queries.json", kQueries);
    const auto ranks = catalog.parent_path() / "ranks.jsonl";
    const Run r = run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                      " --mode all --json --ranks " + ranks.string());
    REQUIRE(r.code == 0);
    std::ifstream in(ranks);
    std::string line;
    std::vector<nlohmann::json> lines;
    while (std::getline(in, line)) {
        lines.push_back(nlohmann::json::parse(line));
    }
    REQUIRE(lines.size() == 6);  // 2 evaluable queries x 3 modes; the catalog gap has no line
    CHECK(lines[0]["mode"] == "bm25");
    CHECK(lines[5]["mode"] == "hybrid");
    for (const auto& l : lines) {
        CHECK(l["id"].is_string());
        CHECK(l["top"]["tool"].is_string());
    }
    CHECK(lines[0]["rank"] == 1);  // Hit@1 is 1.0 in BM25 (above)
    CHECK(lines[0]["id"] == "1");
    CHECK(lines[0]["top"]["tool"] == "create_pull_request");
}

TEST_CASE("scout eval --rerank adds a re-ranked hybrid row and refuses a broken file", "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const auto queries = write_temp("queries.json", kQueries);
    std::string model = "scout-reranker 1\nfeatures 14\n";
    for (const char* name : {"bm25_relative",
                             "bm25_reciprocal_rank",
                             "dense_cosine",
                             "dense_relative",
                             "dense_reciprocal_rank",
                             "fused_relative",
                             "in_both",
                             "cover_name",
                             "cover_description",
                             "cover_parameters",
                             "cover_server",
                             "cover_any",
                             "name_words_in_query",
                             "name_in_query"}) {
        model += std::string(name) + " 0.5\n";
    }
    const auto good = write_temp("model.txt", model + "bias 0\nend\n");
    const Run r = run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                      " --embedder hashing --mode all --json --rerank " + good.string());
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j.size() == 5);  // bm25, dense, hybrid, hybrid re-ranked, union
    CHECK(j[2]["mode"] == "hybrid");
    CHECK(j[2]["rerank"] == false);
    CHECK(j[3]["mode"] == "hybrid");
    CHECK(j[3]["rerank"] == true);

    const auto rows = catalog.parent_path() / "candidates.txt";
    REQUIRE(run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                " --embedder hashing --rerank-candidates " + rows.string())
                .code == 0);
    std::ifstream in(rows);
    std::string header;
    REQUIRE(std::getline(in, header));
    CHECK(header.rfind("query relevant bm25_relative", 0) == 0);
    std::string line;
    std::size_t relevant = 0;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::size_t query = 0;
        int is_relevant = 0;
        fields >> query >> is_relevant;
        relevant += is_relevant == 1 ? 1 : 0;
    }
    CHECK(relevant >= 1);

    // --rerank-depth N: at most N rows per query.
    const auto shallow = catalog.parent_path() / "candidates-2.txt";
    REQUIRE(run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                " --embedder hashing --rerank-candidates " + shallow.string() + " --rerank-depth 2")
                .code == 0);
    std::ifstream shallow_in(shallow);
    REQUIRE(std::getline(shallow_in, header));
    std::map<std::size_t, std::size_t> rows_per_query;
    while (std::getline(shallow_in, line)) {
        std::istringstream fields(line);
        std::size_t query = 0;
        fields >> query;
        ++rows_per_query[query];
    }
    REQUIRE_FALSE(rows_per_query.empty());
    for (const auto& [query, count] : rows_per_query) {
        CHECK(count <= 2);
    }
    for (const char* bad : {" --rerank-depth 0", " --rerank-depth x"}) {
        CHECK(run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                  " --embedder hashing --rerank-candidates " + shallow.string() + bad)
                  .code == 2);
    }
    CHECK(run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
              " --rerank-depth 2")
              .code == 2);

    const auto truncated = write_temp("truncated.txt", model);
    CHECK(run("search --catalog " + catalog.string() + " --rerank " + truncated.string() +
              " pull request")
              .code == 2);
    CHECK(run("search --catalog " + catalog.string() + " --rerank " +
              (catalog.parent_path() / "absent.txt").string() + " pull request")
              .code == 2);
}

TEST_CASE("bad input exits with code 2, never a crash", "[cli]") {
    const auto good = write_temp("catalog.json", kCatalog);
    const auto malformed = write_temp("malformed.json", "{\"servers\": [");
    const auto wrong = write_temp(
        "wrong.json", R"({"servers":[{"name":"a","tools":[{"description":"no name"}]}]})");
    const auto bad_utf8 = write_temp("utf8.json", "{\"servers\":[{\"name\":\"\xC3\x28\"}]}");
    const auto queries_bad = write_temp("queries_bad.json", R"({"queries":[{"id":"1"}]})");
    const auto good_queries = write_temp("queries.json", kQueries);
    const std::vector<std::string> cases = {
        "search --catalog /no/such/file.json query",
        "search --catalog " + malformed.string() + " query",
        "search --catalog " + wrong.string() + " query",
        "search --catalog " + bad_utf8.string() + " query",
        "search --catalog " + good.string(),  // no query
        "search --catalog " + good.string() + " --mode sideways query",
        "search --catalog " + good.string() + " --top-k many query",
        "search --catalog " + good.string() + " --bogus query",
        "search --catalog " + good.string() + " --embedder quantum query",
        "search --catalog " + good.string() + " --neighbours 3,x query",
        "search --catalog " + good.string() + " --neighbours 1,0.1,0.5,9 query",
        "search --catalog " + good.string() + " --neighbours -1 query",
        "search --catalog " + good.string() + " --action heavy query",
        "search --catalog " + good.string() + " --action -1 query",
        "search --catalog " + good.string() + " --bm25 action=x query",
        "eval --catalog " + good.string() + " --queries " + good_queries.string() +
            " --ranks /no/such/dir/r.jsonl",
        "eval --catalog " + good.string() + " --queries " + queries_bad.string(),
        "eval --catalog " + good.string(),
        "frobnicate",
    };
    for (const std::string& args : cases) {
        INFO(args);
        CHECK(run(args).code == 2);
    }
}

TEST_CASE("scout eval --fusion all compares every fusion method, --auto-k reports the mean k",
          "[cli]") {
    const auto catalog = write_temp("catalog.json", kCatalog);
    const auto queries = write_temp("queries.json", kQueries);
    const Run r = run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
                      " --embedder hashing --fusion all --auto-k on --json");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j.is_array());
    REQUIRE(j.size() ==
            8);  // bm25, dense, hybrid x {rrf, weighted_rrf, score_blend, anchored, gated}, union
    CHECK(j[0]["mode"] == "bm25");
    CHECK(j[1]["mode"] == "dense");
    const char* methods[] = {"rrf", "weighted_rrf", "score_blend", "anchored", "gated"};
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(j[2 + i]["mode"] == "hybrid");
        CHECK(j[2 + i]["fusion"] == methods[i]);
    }
    CHECK(j[7]["mode"] == "union");
    for (std::size_t i = 0; i < 7; ++i) {
        const auto& row = j[i];
        const double mean_k = row["auto_k"]["mean_k"].get<double>();
        CHECK(mean_k >= 1.0);
        CHECK(mean_k <= 20.0);
        CHECK(row["auto_k"]["hit"].get<double>() <= 1.0);
    }
    CHECK(run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
              " --auto-k 1.5")
              .code == 2);
    CHECK(run("eval --catalog " + catalog.string() + " --queries " + queries.string() +
              " --fusion nope")
              .code == 2);
}

TEST_CASE("scout calibrate writes a file scout index applies, and refuses bad input", "[cli]") {
    const auto catalog = write_temp("calibrate-catalog.json", kCatalog);
    const auto training = catalog.parent_path() / "calibrate-training";
    for (const char* source : {"first", "second"}) {
        std::filesystem::create_directories(training / source);
        std::ofstream(training / source / "catalog.json") << kCatalog;
        std::ofstream(training / source / "queries.json") << kQueries;
    }
    const auto file = catalog.parent_path() / "calibration.txt";
    const std::string fit = "calibrate --quiet --embedder hashing:16 --training " +
                            training.string() + " --out " + file.string();
    REQUIRE(run(fit).code == 0);
    std::ifstream in(file);
    std::string header;
    std::getline(in, header);
    CHECK(header == "scout-calibration 1");
    const auto index = catalog.parent_path() / "calibrated.scoutidx";
    const std::string index_args = "index --catalog " + catalog.string() + " --out " +
                                   index.string() + " --calibration " + file.string();
    CHECK(run(index_args + " --embedder hashing:16").code == 0);
    // Another model than the one calibrated, a truncated file, a setting an index already holds.
    CHECK(run(index_args + " --embedder hashing:32").code == 2);
    std::stringstream whole;
    whole << std::ifstream(file).rdbuf();
    const auto truncated =
        write_temp("truncated-calibration.txt", whole.str().substr(0, whole.str().size() - 4));
    CHECK(run("index --catalog " + catalog.string() + " --out " + index.string() +
              " --embedder hashing:16 --calibration " + truncated.string())
              .code == 2);
    CHECK(run("search --index " + index.string() + " --embedder hashing:16 --calibration " +
              file.string() + " open a pull request")
              .code == 2);
    // calibrate's own bad input.
    CHECK(run("calibrate --embedder nonsense --training " + training.string()).code == 2);
    CHECK(run("calibrate --embedder hashing:16 --training " +
              (catalog.parent_path() / "no-such-folder").string())
              .code == 2);
    CHECK(run("calibrate --embedder hashing:16 --training " + (training / "first").string()).code ==
          2);  // a folder without source sub-folders
    CHECK(run("calibrate --embedder none --training " + training.string()).code == 2);
    CHECK(run("calibrate --embedder hashing:16 --queries-per-source x --training " +
              training.string())
              .code == 2);
}
