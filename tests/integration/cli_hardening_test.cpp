// cli_hardening_test.cpp: the scout binary against hostile or careless input: output that stays
// linear in a schema's nesting, index targets that must not be replaced, inputs that are not
// regular files, names with control characters, over-limit values and queries, and degraded
// reasons that say what really happened.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "built_components.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using Run = scout::testing::CliRun;

Run run(const scout::test::TempDir& dir, const std::string& args) {
    return scout::testing::run_cli(SCOUT_CLI_PATH, args, dir.file("stderr.txt"));
}

std::string read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

constexpr const char* kCatalog = R"({"servers":[
  {"name":"weather","description":"Weather data","tools":[
    {"name":"get_forecast","description":"Get the weather forecast for a city"}]},
  {"name":"files","description":"File system","tools":[
    {"name":"read_file","description":"Read a file from disk"}]}]})";

/// A catalog whose one tool has an inputSchema of nested arrays `depth` deep (under the limit).
std::string nested_catalog(std::size_t depth) {
    const std::string open(depth, '[');
    const std::string close(depth, ']');
    return R"({"servers":[{"name":"deep","tools":[{"name":"nested_tool","description":"nested",
      "inputSchema":{"type":"object","default":)" +
           open + close + "}}]}]}";
}

}  // namespace

TEST_CASE("search --json output stays linear in a schema's nesting", "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("deep.json", nested_catalog(240));
    const Run r =
        run(dir, "search --catalog " + catalog + " --embedder none --json --top-k 1 nested");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["matches"].size() == 1);
    CHECK(j["matches"][0]["inputSchema"]["default"].is_array());
    // Indenting every level printed ~115 KB for this 0.5 KB schema (quadratic in the depth).
    CHECK(r.out.size() < 4000);
}

TEST_CASE("index --out refuses a FIFO, a directory and the input catalog", "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Run to_fifo = run(dir, "index --catalog " + catalog + " --embedder none --out " + fifo);
    CHECK(to_fifo.code == 2);
    CHECK(to_fifo.err.find("not a regular file") != std::string::npos);
    CHECK(std::filesystem::is_fifo(fifo));

    const Run to_dir =
        run(dir, "index --catalog " + catalog + " --embedder none --out " + dir.file(""));
    CHECK(to_dir.code == 2);
    CHECK(std::filesystem::is_directory(dir.file("")));

    const Run onto_input =
        run(dir, "index --catalog " + catalog + " --embedder none --out " + catalog);
    CHECK(onto_input.code == 2);
    CHECK(onto_input.err.find("input catalog") != std::string::npos);
    CHECK(read_all(catalog) == kCatalog);
    // The same file under another name is still the input.
    const Run via_dot = run(
        dir,
        "index --catalog " + catalog + " --embedder none --out " + dir.file(".") + "/catalog.json");
    CHECK(via_dot.code == 2);
    CHECK(read_all(catalog) == kCatalog);

    const Run fine =
        run(dir, "index --catalog " + catalog + " --embedder none --out " + dir.file("i.idx"));
    CHECK(fine.code == 0);
}

TEST_CASE("index --out writes a link's target by rename, never the link, a device or a FIFO",
          "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const auto index_to = [&](const std::string& out) {
        return run(dir, "index --catalog " + catalog + " --embedder none --out " + out);
    };
    // A link to an index file: the file it names is replaced, the link stays as it was.
    dir.write("real.idx", "old bytes");
    const std::string link = dir.file("link.idx");
    std::filesystem::create_symlink("real.idx", link);
    const Run through = index_to(link);
    INFO(through.err);
    CHECK(through.code == 0);
    CHECK(std::filesystem::is_symlink(link));
    CHECK(std::filesystem::read_symlink(link) == "real.idx");
    CHECK(read_all(dir.file("real.idx")).rfind("SCOUTIDX", 0) == 0);
    CHECK(run(dir, "search --index " + link + " --embedder none forecast").code == 0);
    // A link to a file not there yet: the file is created where the link points.
    std::filesystem::create_directory(dir.file("sub"));
    const std::string ahead = dir.file("ahead.idx");
    std::filesystem::create_symlink("sub/new.idx", ahead);
    CHECK(index_to(ahead).code == 0);
    CHECK(std::filesystem::is_symlink(ahead));
    CHECK(std::filesystem::is_regular_file(dir.file("sub/new.idx")));

    // A device, directly and through a link. As root, a device node of our own (the null
    // device's numbers) stands in for /dev/null, so a regression cannot replace the real one.
    std::string device = "/dev/null";
    if (::geteuid() == 0) {
        device = dir.file("null");
        REQUIRE(::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);
    }
    const std::string to_device = dir.file("device.idx");
    std::filesystem::create_symlink(device, to_device);
    for (const std::string& out : {device, to_device}) {
        const Run refused = index_to(out);
        INFO(out << ": " << refused.err);
        CHECK(refused.code == 2);
        CHECK(refused.err.find("not a regular file") != std::string::npos);
    }
    CHECK(std::filesystem::is_character_file(device));
    CHECK(std::filesystem::is_symlink(to_device));

    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string to_fifo = dir.file("fifo.idx");
    std::filesystem::create_symlink("fifo", to_fifo);
    const Run refused = index_to(to_fifo);
    CHECK(refused.code == 2);
    CHECK(refused.err.find("not a regular file") != std::string::npos);
    CHECK(std::filesystem::is_fifo(fifo));
    CHECK(std::filesystem::is_symlink(to_fifo));
}

TEST_CASE("a catalog that is not a regular file ends at once with a clear error",
          "[cli][hardening]") {
    scout::test::TempDir dir;
    const Run zero = run(dir, "search --catalog /dev/zero --embedder none q");
    CHECK(zero.code == 2);
    CHECK(zero.err.find("not a regular file") != std::string::npos);
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Run from_fifo = run(dir, "search --catalog " + fifo + " --embedder none q");
    CHECK(from_fifo.code == 2);
    CHECK(from_fifo.err.find("not a regular file") != std::string::npos);
}

TEST_CASE("every file flag refuses a FIFO and a device at once, never reading or waiting",
          "[cli][hardening]") {
    // run_cli bounds each run by `timeout 60`: a blocking open of the FIFO (it has no writer) or
    // an endless read of /dev/zero ends the run with 124 and fails the exit-code checks.
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const std::string& odd : {fifo, std::string("/dev/zero")}) {
        INFO(odd);
        // A model that cannot be read turns dense search off with a note naming the file.
        const Run model =
            run(dir, "search --catalog " + catalog + " --embedder static:" + odd + " forecast");
        CHECK(model.code == 0);
        CHECK(model.err.find(odd + ": not a regular file") != std::string::npos);

        const Run ca = run(dir,
                           "search --catalog " + catalog +
                               " --embedder http --embedder-url http://127.0.0.1:9/v1"
                               " --embedder-model m --embedder-ca " +
                               odd + " forecast");
        CHECK(ca.code == 2);
        // (A build without scout::http refuses the embedder before reading its CA file.)
        CHECK(ca.err.find(SCOUT_WITH_HTTP
                              ? odd + ": not a regular file"
                              : std::string("SCOUT_WITH_HTTP=OFF")) != std::string::npos);

        const Run queries =
            run(dir, "eval --catalog " + catalog + " --embedder none --queries " + odd);
        CHECK(queries.code == 2);
        CHECK(queries.err.find("not a regular file") != std::string::npos);

        const Run tokens = run(dir, "tokens --file " + odd);
        CHECK(tokens.code == 2);
        CHECK(tokens.err.find(odd + ": not a regular file") != std::string::npos);

        const Run index = run(dir, "search --index " + odd + " --embedder none forecast");
        CHECK(index.code == 2);
        CHECK(index.err.find("not a regular file") != std::string::npos);
    }
}

TEST_CASE("search --embedder none is not degraded, a failed service probe is and says why",
          "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const Run none = run(dir, "search --catalog " + catalog + " --embedder none --json forecast");
    REQUIRE(none.code == 0);
    const auto n = nlohmann::json::parse(none.out);
    CHECK(n["degraded"] == false);
    CHECK(n["mode"] == "bm25");
    CHECK(n["matches"][0]["tool"] == "get_forecast");
    // Asking for dense without an embedder is degraded.
    const Run dense =
        run(dir, "search --catalog " + catalog + " --embedder none --mode hybrid --json forecast");
    REQUIRE(dense.code == 0);
    CHECK(nlohmann::json::parse(dense.out)["degraded"] == true);

    // Nothing listens on port 1: the probe fails (after its bounded retries). A build without
    // scout::http refuses the embedder instead, saying why.
    const Run http = run(dir,
                         "search --catalog " + catalog +
                             " --embedder http --embedder-url http://127.0.0.1:1 "
                             "--embedder-model m --json forecast");
    if (!SCOUT_WITH_HTTP) {
        CHECK(http.code == 2);
        CHECK(http.err.find("SCOUT_WITH_HTTP=OFF") != std::string::npos);
        return;
    }
    REQUIRE(http.code == 0);
    const auto h = nlohmann::json::parse(http.out);
    CHECK(h["degraded"] == true);
    const std::string reason = h["degraded_reason"].get<std::string>();
    CHECK(reason.find("embedding service unavailable") != std::string::npos);
    CHECK(reason.find("connect") != std::string::npos);
}

TEST_CASE("names with control characters are refused and quoted escaped", "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write(
        "evil.json",
        R"({"servers":[{"name":"evil\u001b[2J","tools":[{"name":"t","description":"x"}]}]})");
    const Run r = run(dir, "search --catalog " + catalog + " --embedder none q");
    CHECK(r.code == 2);
    CHECK(r.err.find("control character") != std::string::npos);
    CHECK(r.err.find("\\x1b") != std::string::npos);
    CHECK(r.err.find('\x1b') == std::string::npos);
    const std::string tool = dir.write(
        "evil_tool.json",
        R"({"servers":[{"name":"s","tools":[{"name":"bell\u0007","description":"x"}]}]})");
    CHECK(run(dir, "search --catalog " + tool + " --embedder none q").code == 2);
}

TEST_CASE("a size-limit error quotes only a prefix of the value", "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string name(1 << 20, 'n');
    const std::string catalog = dir.write(
        "big.json",
        R"({"servers":[{"name":"s","tools":[{"name":")" + name + R"(","description":"x"}]}]})");
    const Run r = run(dir, "search --catalog " + catalog + " --embedder none q");
    CHECK(r.code == 2);
    CHECK(r.err.find("over the limit") != std::string::npos);
    CHECK(r.err.size() < 1000);
}

TEST_CASE("eval says how many queries failed instead of counting them as silent misses",
          "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    const std::string huge(20000, 'w');
    const std::string queries = dir.write(
        "queries.json",
        R"({"queries":[{"id":"1","query":"weather forecast","relevant":[{"server":"weather","tool":"get_forecast"}]},
           {"id":"2","query":")" +
            huge + R"(","relevant":[{"server":"files","tool":"read_file"}]}]})");
    const Run text =
        run(dir, "eval --catalog " + catalog + " --queries " + queries + " --embedder none");
    REQUIRE(text.code == 0);
    CHECK(text.err.find("1 of 2 evaluable queries failed") != std::string::npos);
    CHECK(text.err.find("over the limit") != std::string::npos);
    CHECK(text.err.size() < 1000);
    const Run json =
        run(dir, "eval --catalog " + catalog + " --queries " + queries + " --embedder none --json");
    REQUIRE(json.code == 0);
    const auto j = nlohmann::json::parse(json.out);
    CHECK(j["errors"] == 1);
    CHECK(j["first_error"].get<std::string>().find("over the limit") != std::string::npos);
}

TEST_CASE("punctuation-only and CJK-only queries are not degraded and say why",
          "[cli][hardening]") {
    scout::test::TempDir dir;
    const std::string catalog = dir.write("catalog.json", kCatalog);
    // The default embedder: the static model shipped in the checkout.
    for (const char* query : {"'?!...'", "'検索する'"}) {
        const Run r = run(dir, "search --catalog " + catalog + " --json " + query);
        INFO(query << r.err);
        REQUIRE(r.code == 0);
        const auto j = nlohmann::json::parse(r.out);
        CHECK(j["degraded"] == false);
        CHECK(j["matches"].empty());
        CHECK_FALSE(j.value("notice", std::string()).empty());
    }
    const Run punct = run(dir, "search --catalog " + catalog + " --json '?!...'");
    CHECK(nlohmann::json::parse(punct.out)["notice"] == "the query holds no searchable words");
}
