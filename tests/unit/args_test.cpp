// args_test.cpp: the command-line parser the `scout` command and scout-gateway share
// (tools/args): both spellings of a value, flags, `--`, unknown options with the nearest known
// one, values refused by their setters, whole numbers refused outside their range, the help.
#include "args/args.hpp"

#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "args/nearest.hpp"
#include "args/values.hpp"

using scout::args::Args;
using scout::args::CommandSpec;

namespace {

/// What the test program's options set.
struct Settings {
    std::uint64_t top_k = 5;
    bool verbose = false;
    std::vector<std::string> headers;
};

CommandSpec make_spec(Settings& s, std::string positional = "QUERY...") {
    return CommandSpec{
        "prog",
        std::move(positional),
        "A test program.",
        {{"Options",
          {{"top-k",
            "K",
            "5",
            "how many",
            false,
            [&s](const std::string& v) { return scout::args::read_whole(v, 1, 20, s.top_k); }},
           {"verbose",
            "",
            "",
            "say more",
            false,
            [&s](const std::string&) {
                s.verbose = true;
                return std::string();
            }},
           {"header",
            "'K: V'",
            "",
            "a header",
            true,
            [&s](const std::string& v) {
                s.headers.push_back(v);
                return std::string();
            }},
           {"catalog", "FILE", "catalog.json", "the catalog", false, {}}}}},
        "Exit codes: 0 ok, 2 a bad argument.\n"};
}

/// Parses `words` (after the program name); the error when it fails.
std::optional<Args> parse(const CommandSpec& spec,
                          std::vector<std::string> words,
                          std::string& error) {
    std::vector<const char*> argv{"prog"};
    for (const std::string& w : words) {
        argv.push_back(w.c_str());
    }
    return Args::parse(static_cast<int>(argv.size()), argv.data(), 1, spec, error);
}

}  // namespace

TEST_CASE("both --opt value and --opt=value set the option", "[args]") {
    for (const std::vector<std::string>& words :
         {std::vector<std::string>{"--top-k", "7", "find", "--catalog", "c.json"},
          std::vector<std::string>{"--top-k=7", "find", "--catalog=c.json"}}) {
        Settings s;
        const CommandSpec spec = make_spec(s);
        std::string error;
        const auto args = parse(spec, words, error);
        REQUIRE(args);
        CHECK(error.empty());
        CHECK(s.top_k == 7);
        CHECK(args->get("top-k") == "7");
        CHECK(args->get("catalog") == "c.json");
        CHECK(args->positional() == std::vector<std::string>{"find"});
    }
}

TEST_CASE("flags take no value, repeated options keep every value and get the last", "[args]") {
    Settings s;
    const CommandSpec spec = make_spec(s);
    std::string error;
    auto args = parse(spec, {"--verbose", "--header", "a: 1", "--header=b: 2", "q"}, error);
    REQUIRE(args);
    CHECK(s.verbose);
    CHECK(s.headers == std::vector<std::string>{"a: 1", "b: 2"});
    CHECK(args->all("header") == s.headers);
    CHECK(args->get("header") == "b: 2");
    CHECK(args->has("verbose"));
    CHECK_FALSE(args->has("catalog"));
    CHECK_FALSE(parse(spec, {"--verbose=yes"}, error));
    CHECK(error == "--verbose takes no value");
    CHECK_FALSE(parse(spec, {"--top-k"}, error));
    CHECK(error == "--top-k needs a value (K)");
}

TEST_CASE("an unknown option names the nearest known one", "[args]") {
    Settings s;
    const CommandSpec spec = make_spec(s);
    std::string error;
    CHECK_FALSE(parse(spec, {"--top_k", "3"}, error));
    CHECK(error == "unknown option --top_k (did you mean --top-k?)");
    CHECK_FALSE(parse(spec, {"--verbos"}, error));
    CHECK(error == "unknown option --verbos (did you mean --verbose?)");
    CHECK_FALSE(parse(spec, {"--frobnicate"}, error));
    CHECK(error == "unknown option --frobnicate");
    CHECK_FALSE(parse(spec, {"-k", "3"}, error));
    CHECK(error.rfind("unknown option -k", 0) == 0);
}

TEST_CASE("a -- ends the options, and a command without positionals refuses words", "[args]") {
    Settings s;
    const CommandSpec spec = make_spec(s);
    std::string error;
    auto args = parse(spec, {"--verbose", "--", "--top-k", "-x", "--help"}, error);
    REQUIRE(args);
    CHECK(s.top_k == 5);
    CHECK_FALSE(args->help());
    CHECK(args->positional() == std::vector<std::string>{"--top-k", "-x", "--help"});

    Settings t;
    const CommandSpec options_only = make_spec(t, "");
    CHECK_FALSE(parse(options_only, {"--verbose", "stray"}, error));
    CHECK(error == "unexpected argument 'stray' (prog takes options only)");
}

TEST_CASE("a value its setter refuses is an error naming the option and the range", "[args]") {
    for (const char* bad : {"0", "21", "many", "-1", "", "99999999999999999999999"}) {
        Settings s;
        const CommandSpec spec = make_spec(s);
        std::string error;
        INFO(bad);
        CHECK_FALSE(parse(spec, {"--top-k", bad}, error));
        CHECK(error.rfind("--top-k must be 1..20 (got ", 0) == 0);
        CHECK(s.top_k == 5);
    }
    Settings s;
    const CommandSpec spec = make_spec(s);
    std::string error;
    CHECK(parse(spec, {"--top-k", "20"}, error));
    CHECK(s.top_k == 20);
    CHECK(parse(spec, {"--top-k", "1"}, error));
    CHECK(s.top_k == 1);
}

TEST_CASE("help is accepted anywhere before --, and it comes from the table", "[args]") {
    Settings s;
    const CommandSpec spec = make_spec(s);
    std::string error;
    auto args = parse(spec, {"q", "-h"}, error);
    REQUIRE(args);
    CHECK(args->help());
    std::ostringstream help;
    spec.print_help(help);
    const std::string text = help.str();
    CHECK(text.rfind("usage: prog [options] QUERY...\n", 0) == 0);
    CHECK(text.find("--top-k K") != std::string::npos);
    CHECK(text.find("how many (default: 5)") != std::string::npos);
    CHECK(text.find("a header; repeatable") != std::string::npos);
    CHECK(text.find("Exit codes: 0 ok") != std::string::npos);
}

TEST_CASE("reading an option no table declares is a programming error", "[args]") {
    Settings s;
    const CommandSpec spec = make_spec(s);
    std::string error;
    auto args = parse(spec, {}, error);
    REQUIRE(args);
    CHECK_THROWS_AS(args->get("no-such-option"), std::logic_error);
}

TEST_CASE("edit distance and the nearest word", "[args]") {
    using scout::args::edit_distance;
    using scout::args::nearest;
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("max-call", "max-calls") == 1);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("abc", "") == 3);
    const std::vector<std::string> names{"max-calls", "max-calls-per-caller", "max-streams"};
    CHECK(nearest("max-call", names) == "max-calls");
    CHECK(nearest("max-stream", names) == "max-streams");
    CHECK_FALSE(nearest("listen", names));
    CHECK_FALSE(nearest(std::string(65, 'm'), names));
    CHECK(nearest("kitten", {"sitting"}, 3) == "sitting");
}

TEST_CASE("whole numbers are read whole and within their range", "[args]") {
    std::uint64_t v = 9;
    CHECK(scout::args::read_whole("42", 0, 100, v).empty());
    CHECK(v == 42);
    CHECK(scout::args::read_whole("4x", 0, 100, v) == "must be 0..100 (got 4x)");
    CHECK(scout::args::read_whole(" 4", 0, 100, v) == "must be 0..100 (got  4)");
    CHECK(scout::args::read_whole("0", 1, UINT64_MAX, v) ==
          "must be a whole number of at least 1 (got 0)");
    CHECK(v == 42);
    int small = 0;
    CHECK(scout::args::read_whole_into("7", 1, 10, small).empty());
    CHECK(small == 7);
}
