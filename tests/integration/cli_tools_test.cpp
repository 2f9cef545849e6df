// cli_tools_test.cpp: the `scout tokens` and `scout synth` subcommands, run as processes.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"
#include "scout/token_counter.hpp"

#include "support/fixture_skip.hpp"
#include "support/run_command.hpp"
#include "util/file_io.hpp"

namespace {

std::string source_dir() {
    const char* dir = std::getenv("SCOUT_SOURCE_DIR");
    return dir != nullptr ? dir : ".";
}

using Run = scout::testing::CommandRun;

Run run(const std::string& args) {
    return scout::testing::run_command(std::string(SCOUT_CLI_PATH) + " " + args + " 2>/dev/null");
}

}  // namespace

TEST_CASE("scout tokens prints the count of a file", "[cli]") {
    if (!scout::TokenCounter::load_default(scout::TokenEncoding::o200k_base)) {
        SCOUT_SKIP_WITHOUT_FIXTURE("BPE rank files unavailable");
    }
    const auto fixture = nlohmann::json::parse(
        scout::detail::read_text_file(source_dir() + "/tests/fixtures/token_counts.json").value());
    const auto& queries = fixture["files"][1];
    REQUIRE(queries["file"] == "data/queries-49.json");
    const Run r =
        run("tokens --encoding o200k_base --file " + source_dir() + "/data/queries-49.json");
    CHECK(r.code == 0);
    CHECK(r.out == std::to_string(queries["o200k_base"].get<std::size_t>()) + "\n");
}

TEST_CASE("scout tokens rejects bad input", "[cli]") {
    CHECK(run("tokens --encoding gpt2 --file x").code == 2);
    CHECK(run("tokens --encoding cl100k_base").code == 2);
    CHECK(run("tokens --encoding cl100k_base --file /nonexistent/file").code == 2);
    CHECK(run("tokens --bogus").code == 2);
}

TEST_CASE("scout synth writes a deterministic grown catalog", "[cli]") {
    const auto dir = std::filesystem::temp_directory_path();
    const std::string base = " --catalog " + source_dir() + "/data/enterprise_catalog.json";
    const std::string pid = std::to_string(::getpid());  // concurrent test processes
    const std::string a = (dir / ("scout_synth_a_" + pid + ".json")).string();
    const std::string b = (dir / ("scout_synth_b_" + pid + ".json")).string();
    REQUIRE(run("synth --seed 3 --servers 120 --tools 1000 --out " + a + base).code == 0);
    REQUIRE(run("synth --seed 3 --servers 120 --tools 1000 --out " + b + base).code == 0);
    const auto ta = scout::detail::read_text_file(a);
    const auto tb = scout::detail::read_text_file(b);
    REQUIRE(ta.ok());
    REQUIRE(tb.ok());
    CHECK(ta.value() == tb.value());
    auto spec = scout::parse_catalog_json(ta.value());
    REQUIRE(spec.ok());
    CHECK(spec->servers.size() == 120);
    CHECK(nlohmann::json::parse(ta.value())["source"].get<std::string>().find("synthetic") == 0);
    CHECK(run("synth --servers 10 --tools 20" + base).code == 2);
    CHECK(run("synth --seed nope" + base).code == 2);
}

TEST_CASE("scout doctor reports a seeded catalog and passes its clean twin", "[cli]") {
    const std::string dir = source_dir() + "/tests/fixtures/doctor/";
    const Run bad =
        run("doctor --embedder none --mode bm25 --json --catalog " + dir + "defects.json");
    REQUIRE(bad.code == 0);
    const auto report = nlohmann::json::parse(bad.out);
    CHECK(report["summary"]["tools"] == 9);
    CHECK(report["summary"]["errors"] == 3);
    CHECK(report["summary"]["findings_by_kind"]["duplicate_description"] == 2);
    CHECK(report["summary"]["self_retrieval_rate"].get<double>() < 1.0);

    const Run clean =
        run("doctor --embedder none --mode bm25 --json --catalog " + dir + "clean.json");
    REQUIRE(clean.code == 0);
    const auto ok = nlohmann::json::parse(clean.out);
    CHECK(ok["findings"].empty());
    CHECK(ok["summary"]["self_retrieval_rate"] == 1.0);

    const Run text = run("doctor --embedder none --mode bm25 --catalog " + dir + "defects.json");
    CHECK(text.code == 0);
    CHECK(text.out.find("doctor: 9 tools on 2 servers") == 0);
    CHECK(text.out.find("fix: ") != std::string::npos);

    // --fail-on gates CI: the defects have errors, the clean twin has no finding at all.
    const std::string bm25 = "doctor --embedder none --mode bm25 --json --catalog ";
    CHECK(run(bm25 + dir + "defects.json --fail-on error").code == 1);
    CHECK(run(bm25 + dir + "defects.json --fail-on warning").code == 1);
    CHECK(run(bm25 + dir + "defects.json --fail-on never").code == 0);
    CHECK(run(bm25 + dir + "clean.json --fail-on warning").code == 0);
    CHECK(run(bm25 + dir + "clean.json --fail-on sometimes").code == 2);

    CHECK(run("doctor --json").code == 2);  // no catalog
    CHECK(run("doctor --catalog /nonexistent/catalog.json").code == 2);
}

TEST_CASE("scout search --alt fuses other phrasings", "[cli]") {
    const std::string catalog = " --embedder none --mode bm25 --json --catalog " + source_dir() +
                                "/tests/fixtures/doctor/clean.json ";
    const Run miss = run("search" + catalog + "zqxj blorf");
    REQUIRE(miss.code == 0);
    CHECK(nlohmann::json::parse(miss.out)["matches"].empty());
    const Run hit = run("search" + catalog + "--alt 'sunrise and sunset times' zqxj blorf");
    REQUIRE(hit.code == 0);
    const auto m = nlohmann::json::parse(hit.out)["matches"];
    REQUIRE_FALSE(m.empty());
    CHECK(m[0]["tool"] == "sunrise_sunset");
    CHECK(m[0]["best_phrasing"] == 1);  // only the alternative matched
    CHECK(nlohmann::json::parse(hit.out)["alternatives"] ==
          nlohmann::json::array({"sunrise and sunset times"}));
    CHECK_FALSE(nlohmann::json::parse(miss.out).contains("alternatives"));

    // The text output lists the alternatives and each hit's best phrasing.
    const Run text = run("search --embedder none --mode bm25 --catalog " + source_dir() +
                         "/tests/fixtures/doctor/clean.json --alt 'sunrise and sunset times' "
                         "zqxj blorf");
    REQUIRE(text.code == 0);
    CHECK(text.out.find("alt 1: sunrise and sunset times") != std::string::npos);
    CHECK(text.out.find("best phrasing: alt 1") != std::string::npos);
}
