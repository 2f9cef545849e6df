// cli_help_test.cpp: the `scout` command explains itself: --help on every command lists every
// option of its table with its default, --version, --json on index, tokens and synth, no default
// path relative to the working directory, and a progress display that appears only on a
// terminal and not with --quiet.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "cli/command_specs.hpp"
#include "support/run_command.hpp"

namespace {

std::string source_dir() {
    const char* dir = std::getenv("SCOUT_SOURCE_DIR");
    return dir != nullptr ? dir : ".";
}

std::string catalog() {
    return source_dir() + "/data/enterprise_catalog.json";
}

scout::testing::CommandRun run(const std::string& args, const std::string& redirect = "2>&1") {
    return scout::testing::run_command(std::string(SCOUT_CLI_PATH) + " " + args + " " + redirect);
}

/// The text with each run of whitespace as one space: the help wraps long lines, a default too.
std::string flattened(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const bool space = c == ' ' || c == '\n';
        if (!space) {
            out += c;
        } else if (out.empty() || out.back() != ' ') {
            out += ' ';
        }
    }
    return out;
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("scout_cli_help_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

}  // namespace

TEST_CASE("every command's --help lists each option of its table with its default", "[cli]") {
    for (const scout::cli::CommandSpec* spec : scout::cli::all_specs()) {
        const std::string command = spec->name.substr(spec->name.find(' ') + 1);
        INFO(command);
        const auto r = run(command + " --help");
        CHECK(r.code == 0);
        CHECK(r.out.rfind("usage: " + spec->name, 0) == 0);
        const std::string flat = flattened(r.out);
        std::size_t options = 0;
        for (const auto& group : spec->groups) {
            for (const auto& option : group.options) {
                ++options;
                INFO(option.name);
                CHECK(r.out.find("--" + option.name) != std::string::npos);
                if (!option.fallback.empty()) {
                    CHECK(flat.find("(default: " + option.fallback) != std::string::npos);
                }
            }
        }
        CHECK(options > 0);
        // -h is the same as --help.
        CHECK(run(command + " -h").out == r.out);
    }
}

TEST_CASE("search --help lists the options that used to be hidden", "[cli]") {
    const auto r = run("search --help");
    for (const char* option : {"--fusion",
                               "--auto-k",
                               "--stem",
                               "--expand",
                               "--bm25",
                               "--quiet",
                               "--index",
                               "--events",
                               "--top-k"}) {
        CHECK(r.out.find(option) != std::string::npos);
    }
    // Defaults are printed from the library's own values.
    CHECK(r.out.find("(default: " + std::to_string(scout::SearchOptions{}.top_k) + ")") !=
          std::string::npos);
}

TEST_CASE("scout --help lists the commands and scout --version the library version", "[cli]") {
    const auto help = run("--help");
    CHECK(help.code == 0);
    for (const char* command : {"search", "eval", "index", "tokens", "synth"}) {
        CHECK(help.out.find(std::string("  ") + command) != std::string::npos);
    }
    const auto version = run("--version");
    CHECK(version.code == 0);
    CHECK(version.out == "scout " + std::string(scout::version()) + "\n");
    CHECK(run("").code == 2);
    CHECK(run("frobnicate").code == 2);
}

TEST_CASE("an unknown option is an error that points to --help", "[cli]") {
    const auto r = run("search --catalog x --frobnicate q");
    CHECK(r.code == 2);
    CHECK(r.out.find("unknown option --frobnicate (see scout search --help)") != std::string::npos);
    CHECK(run("index --top-k 3 --catalog x --out y").code == 2);  // a search option
    // A word that looks like an option is one, not query text; -- ends the options.
    const auto dash = run("search --catalog x -k 3 foo");
    CHECK(dash.code == 2);
    CHECK(dash.out.find("unknown option -k") != std::string::npos);
    CHECK(dash.out.find("put -- before") != std::string::npos);
}

TEST_CASE("an out-of-range --top-k is refused with the valid range", "[cli]") {
    for (const char* k : {"0", "21", "100"}) {
        const auto r =
            run("search --catalog " + catalog() + " --embedder none --top-k " + k + " q");
        CHECK(r.code == 2);
        CHECK(r.out.find("--top-k must be 1..20 (got " + std::string(k) + ")") !=
              std::string::npos);
    }
    const auto ok = run("search --catalog " + catalog() + " --embedder none --top-k 20 -- -x pull");
    CHECK(ok.code == 0);  // a query may start with a dash after --
}

TEST_CASE("scout index --json describes the file it wrote", "[cli]") {
    const std::string out = temp_path("index.scoutidx");
    const auto r =
        run("index --catalog " + catalog() + " --embedder none --json --out " + out, "2>/dev/null");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["out"] == out);
    CHECK(j["tools"] == 650);
    CHECK(j["indexed_tools"] == 650);
    CHECK(j["vectors"] == 0);
    CHECK(j["file_bytes"].get<std::uint64_t>() == std::filesystem::file_size(out));
    std::filesystem::remove(out);
}

TEST_CASE("scout tokens --json and scout synth --json", "[cli]") {
    const auto tokens = run("tokens --json --file " + catalog(), "2>/dev/null");
    if (tokens.code == 0) {  // needs the BPE rank files; test_cli_tools covers their absence
        const auto j = nlohmann::json::parse(tokens.out);
        CHECK(j["encoding"] == "cl100k_base");
        CHECK(j["tokens"].get<std::size_t>() > 1000);
        CHECK(j["bytes"] == std::filesystem::file_size(catalog()));
    }
    const std::string out = temp_path("synth.json");
    const auto synth = run("synth --servers 90 --tools 700 --json --out " + out, "2>/dev/null");
    REQUIRE(synth.code == 0);
    const auto j = nlohmann::json::parse(synth.out);
    CHECK(j["servers"] == 90);
    CHECK(j["tools"] == 700);
    CHECK(j["out"] == out);
    std::filesystem::remove(out);
}

TEST_CASE("synth's default catalog does not depend on the working directory", "[cli]") {
    const std::string out = temp_path("synth_elsewhere.json");
    const auto r =
        scout::testing::run_command("cd / && " + std::string(SCOUT_CLI_PATH) +
                                    " synth --servers 83 --tools 660 --out " + out + " 2>&1");
    CHECK(r.code == 0);
    CHECK(std::filesystem::exists(out));
    std::filesystem::remove(out);
}

TEST_CASE("progress: a redrawn line on a terminal, a line per phase in a pipe, none with --quiet",
          "[cli]") {
    const std::string out = temp_path("progress.scoutidx");
    const std::string log = temp_path("progress.log");
    const std::string index = std::string(SCOUT_CLI_PATH) + " index --catalog " + catalog() +
                              " --embedder hashing:32 --out " + out;
    // Piped: stderr holds one plain line per phase, the catalog's parse first.
    REQUIRE(scout::testing::run_command(index + " >/dev/null 2>" + log).code == 0);
    std::ifstream in(log);
    const std::string piped((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(piped);
    CHECK(piped.find('\r') == std::string::npos);
    std::vector<std::string> phases;
    std::istringstream lines(piped);
    const std::regex phase_line(
        R"(([a-z0-9_. ]+): [0-9.]+( MB)? in [0-9.]+ m?s( \([0-9.]+( MB)?/s\))?)");
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        CHECK(std::regex_match(line, match, phase_line));
        phases.push_back(match.size() > 1 ? match[1].str() : line);
    }
    CHECK(phases == std::vector<std::string>{"parsing enterprise_catalog.json",
                                             "indexing documents",
                                             "indexing bm25",
                                             "indexing embeddings",
                                             "indexing dense"});
    CHECK_THAT(piped, Catch::StartsWith("parsing enterprise_catalog.json: 0.5 MB in "));
    CHECK_THAT(piped, Catch::Contains("\nindexing documents: 650 in "));

    const auto quiet = scout::testing::run_command(index + " --quiet 2>&1 >/dev/null");
    CHECK(quiet.code == 0);
    CHECK(quiet.out.empty());

    // script(1) gives the command a pseudo-terminal; its output is the terminal's.
    if (scout::testing::run_command("command -v script >/dev/null 2>&1").code != 0) {
        WARN("script(1) is not installed; the terminal case is not checked");
    } else {
        const auto shown =
            scout::testing::run_command("script -qec '" + index + "' /dev/null 2>&1");
        CHECK(shown.code == 0);
        CHECK_THAT(shown.out, Catch::Contains("\rparsing enterprise_catalog.json: "));
        CHECK_THAT(shown.out, Catch::Contains("\rindexing documents: 650/650 (100%)"));
        CHECK_THAT(shown.out, Catch::Contains("\rindexing embeddings"));
        const auto quiet_terminal =
            scout::testing::run_command("script -qec '" + index + " --quiet' /dev/null 2>&1");
        CHECK(quiet_terminal.code == 0);
        CHECK(quiet_terminal.out.find("indexing") == std::string::npos);
    }
    std::filesystem::remove(out);
    std::filesystem::remove(log);
}
