// json_limits_test.cpp: depth-bounded JSON parsing (src/util/json_limits) and the quoting
// helpers of src/util/printable.hpp.
#include "util/json_limits.hpp"

#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "util/printable.hpp"

using scout::detail::clipped;
using scout::detail::has_pruned;
using scout::detail::kMaxJsonDepth;
using scout::detail::parse_json;
using scout::detail::parse_json_pruned;
using scout::detail::printable;

namespace {

std::string nested_arrays(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

TEST_CASE("bounded parsing gives the values nlohmann gives", "[json_limits]") {
    for (const char* text :
         {R"({"a":[1,2.5,-3,true,null,"s\u00e9"],"b":{"c":{}},"a":"dup"})",
          "[]",
          "7",
          "\"x\"",
          R"({"big":18446744073709551615,"neg":-9223372036854775808,"f":1e300})"}) {
        INFO(text);
        auto parsed = parse_json(text);
        REQUIRE(parsed.ok());
        CHECK(*parsed == nlohmann::json::parse(text));
    }
}

TEST_CASE("nesting is refused past the limit, at the limit it is kept", "[json_limits]") {
    CHECK(parse_json(nested_arrays(kMaxJsonDepth)).ok());
    auto deep = parse_json(nested_arrays(kMaxJsonDepth + 1));
    REQUIRE_FALSE(deep.ok());
    CHECK(deep.status().code() == scout::Errc::invalid_argument);
    CHECK(deep.status().message() == "JSON nested deeper than 256 levels");
    // Far past it: refused without building anything deep (a recursive dump would crash here).
    auto huge = parse_json(nested_arrays(1000000));
    REQUIRE_FALSE(huge.ok());
    CHECK(parse_json(R"({"a":{"b":[1]}})", 3).ok());
    CHECK_FALSE(parse_json(R"({"a":{"b":[1]}})", 2).ok());
    CHECK_FALSE(parse_json(R"({"a":{"b":[1]}})", 0).ok());
    CHECK(parse_json("1", 0).ok());
}

TEST_CASE("a parse reports the bytes it has read", "[json_limits]") {
    // An array of strings a little over 2.5 MiB: steps at 1 and 2 MiB, then the end.
    std::string text = "[";
    while (text.size() < 5 * scout::detail::kProgressStepBytes / 2) {
        // Appended in place: GCC 12 reports a false -Wrestrict for "\"" + std::string(...)
        // when this file shares a translation unit with others (a unity build).
        text += '"';
        text.append(1000, 'x');
        text += "\",";
    }
    text += "1]";
    std::vector<std::pair<std::size_t, std::size_t>> heard;
    auto parsed = parse_json(text, kMaxJsonDepth, [&](std::size_t done, std::size_t total) {
        heard.emplace_back(done, total);
    });
    REQUIRE(parsed.ok());
    CHECK(parsed->size() == (text.size() - 3) / 1003 + 1);
    const std::size_t step = scout::detail::kProgressStepBytes;
    const std::vector<std::pair<std::size_t, std::size_t>> expected = {
        {0, text.size()}, {step, text.size()}, {2 * step, text.size()}, {text.size(), text.size()}};
    CHECK(heard == expected);

    heard.clear();  // malformed: no end reported
    CHECK_FALSE(parse_json("[1, 2", kMaxJsonDepth, [&](std::size_t d, std::size_t t) {
                    heard.emplace_back(d, t);
                }).ok());
    CHECK(heard == std::vector<std::pair<std::size_t, std::size_t>>{{0, 5}});
}

TEST_CASE("malformed JSON gives a short message", "[json_limits]") {
    for (const std::string& text : {std::string("{"),
                                    std::string("[1,]"),
                                    std::string("\"\xff\""),
                                    std::string(),
                                    "\"" + std::string(1 << 20, 'x') + "\\q\""}) {
        auto r = parse_json(text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.status().message().rfind("malformed JSON", 0) == 0);
        CHECK(r.status().message().size() < 300);
    }
}

TEST_CASE("pruned parsing keeps what is shallow and marks what is not", "[json_limits]") {
    const std::string text =
        R"({"ok":{"x":1},"deep":)" + nested_arrays(100000) + R"(,"after":[2,{"y":3}]})";
    auto pruned = parse_json_pruned(text, 4);
    REQUIRE(pruned.ok());
    CHECK(pruned->pruned == 1);
    CHECK(pruned->value["ok"]["x"] == 1);
    CHECK(pruned->value["after"][1]["y"] == 3);
    CHECK(pruned->value["deep"][0][0].is_array());
    CHECK(pruned->value["deep"][0][0][0].is_discarded());
    CHECK(has_pruned(pruned->value));
    CHECK(has_pruned(pruned->value["deep"]));
    CHECK_FALSE(has_pruned(pruned->value["after"]));
    auto clean = parse_json_pruned(R"({"a":[[1]]})");
    REQUIRE(clean.ok());
    CHECK(clean->pruned == 0);
    CHECK_FALSE(has_pruned(clean->value));
    CHECK_FALSE(parse_json_pruned("{").ok());
}

TEST_CASE("outside names are escaped for logs and clipped for messages", "[json_limits]") {
    CHECK(printable("plain name") == "plain name");
    CHECK(printable("a\x1b[2Jb\n\x7f") == "a\\x1b[2Jb\\x0a\\x7f");
    CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(clipped("short") == "short");
    const std::string long_name(1 << 20, 'q');
    CHECK(clipped(long_name) == std::string(80, 'q') + "... (1048576 bytes)");
    // Never cut inside a UTF-8 sequence: 79 ASCII bytes, then a two-byte character.
    const std::string accented = std::string(79, 'a') + "\xc3\xa9" + std::string(10, 'b');
    CHECK(clipped(accented) == std::string(79, 'a') + "... (91 bytes)");
}
