// json_check_test.cpp: json_shape (src/util/json_check) agrees with the parser it stands in for:
// hand-picked texts of every kind of mistake, then random mutations of real schemas, each judged
// by both.
#include "util/json_check.hpp"

#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "util/json_limits.hpp"

using scout::detail::is_json_object;
using scout::detail::json_shape;
using scout::detail::JsonShape;
using scout::detail::parse_json;

namespace {

/// What the parser says: an object, or not.
bool parser_object(std::string_view text, std::size_t depth = scout::detail::kMaxJsonDepth) {
    auto parsed = parse_json(text, depth);
    return parsed.ok() && parsed->is_object();
}

/// The check's verdict, where it has one, must be the parser's.
void agrees(std::string_view text, std::size_t depth = scout::detail::kMaxJsonDepth) {
    INFO(std::string(text));
    const JsonShape shape = json_shape(text, depth);
    if (shape != JsonShape::unsure) {
        CHECK((shape == JsonShape::object) == parser_object(text, depth));
    }
    CHECK(is_json_object(text, depth) == parser_object(text, depth));
}

}  // namespace

TEST_CASE("json_shape accepts the objects the parser accepts", "[json_check]") {
    for (const char* text : {
             R"({})",
             R"( {"type":"object"} )",
             "\t{\n\"a\" : [1, -2, 3.25, 0, -0, 0.5, true, false, null, \"x\"]\r}\n",
             R"({"properties":{"q":{"type":"string","enum":["a","b"]}},"required":["q"]})",
             R"({"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"})",
             "{\"u\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\"}",
             R"({"a":{"b":{"c":[[[]]]}}})",
             R"({"dup":1,"dup":2})",
         }) {
        INFO(text);
        CHECK(json_shape(text) == JsonShape::object);
        CHECK(parser_object(text));
    }
}

TEST_CASE("json_shape refuses what the parser refuses and values that are not objects",
          "[json_check]") {
    for (const char* text : {
             "",
             "   ",
             "[]",
             "\"s\"",
             "1",
             "null",
             "{",
             "}",
             R"({"a":1,})",
             R"({"a":[1,2,]})",
             R"({"a" 1})",
             R"({a:1})",
             R"({'a':1})",
             R"({"a":01})",
             R"({"a":1.})",
             R"({"a":.5})",
             R"({"a":+1})",
             R"({"a":-})",
             R"({"a":tru})",
             R"({"a":truex})",
             R"({"a":nul})",
             R"({"a":"unterminated})",
             "{\"a\":\"raw\ttab\"}",
             "{\"a\":\"raw\nnewline\"}",
             R"({"a":"\x"})",
             R"({"a":"\u12"})",
             R"({"a":"\uD800"})",
             R"({"a":"\uDC00"})",
             R"({"a":"\uD800\u0041"})",
             "{\"a\":\"\xC3\"}",
             "{\"a\":\"\xED\xA0\x80\"}",  // an encoded surrogate
             "{\"a\":\"\xC0\xAF\"}",      // an overlong
             "{\"a\":1}\x01",
             R"({"a":1} {"b":2})",
             R"({"a":1}])",
             R"({"a":[1}})",
             R"({"a":{"b":1]})",
             R"({"a":1 /* comment */})",
         }) {
        INFO(text);
        CHECK(json_shape(text) == JsonShape::not_object);
        CHECK_FALSE(parser_object(text));
    }
    // A NUL byte inside a string or where a token belongs.
    for (const std::string& with_nul : {std::string("{\"a\":\"x\0y\"}", 11),
                                        std::string("{\"a\":1\0}", 9),
                                        std::string("\0{}", 3)}) {
        CHECK(json_shape(with_nul) == JsonShape::not_object);
        CHECK_FALSE(parser_object(with_nul));
    }
    // After the value, the parser takes a NUL byte for the end of its input.
    const std::string after("{\"a\":1} \0 trailing", 17);
    CHECK(json_shape(after) == JsonShape::object);
    CHECK(parser_object(after));
}

TEST_CASE("json_shape bounds the depth as the parser does", "[json_check]") {
    const auto nested = [](std::size_t depth) {
        std::string s = "{\"a\":";
        s += std::string(depth - 1, '[');
        s += std::string(depth - 1, ']');
        return s + "}";
    };
    CHECK(json_shape(nested(256)) == JsonShape::object);
    CHECK(parser_object(nested(256)));
    CHECK(json_shape(nested(257)) == JsonShape::not_object);
    CHECK_FALSE(parser_object(nested(257)));
    CHECK(json_shape(nested(5), 4) == JsonShape::not_object);
    CHECK(json_shape(nested(4), 4) == JsonShape::object);
}

TEST_CASE("json_shape leaves numbers that may overflow a double to the parser", "[json_check]") {
    for (const char* text : {R"({"a":1e5})", R"({"a":1e400})", R"({"a":-2.5E-3})"}) {
        INFO(text);
        CHECK(json_shape(text) == JsonShape::unsure);
        agrees(text);
    }
    CHECK_FALSE(is_json_object(R"({"a":1e400})"));  // the parser's "number overflow"
    CHECK(is_json_object(R"({"a":1e300})"));
    const std::string long_integer = "{\"a\":" + std::string(400, '9') + "}";
    CHECK(json_shape(long_integer) == JsonShape::unsure);
    CHECK_FALSE(is_json_object(long_integer));
    CHECK(json_shape("\xEF\xBB\xBF{}") == JsonShape::unsure);  // the parser skips a BOM
    agrees("\xEF\xBB\xBF{}");
}

TEST_CASE("json_shape and the parser agree on random mutations of schemas", "[json_check]") {
    const std::vector<std::string> seeds = {
        R"({"type":"object","properties":{"path":{"type":"string","description":"a \"file\""},"n":{"type":"integer","minimum":0,"maximum":10.5}},"required":["path"]})",
        R"({"a":[true,false,null,{"b":[]},"\u00e9\n"],"c":-0.25})",
        "{\"k\":\"caf\xC3\xA9\"}",
    };
    std::string alphabet = "{}[]\":,.-+0123456789eEtrufalsn \\/bfnrtu\x01\x80\xC3\xA9";
    alphabet.push_back('\0');
    std::mt19937 rng(17);
    std::size_t decided = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string text = seeds[static_cast<std::size_t>(round) % seeds.size()];
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !text.empty(); ++e) {
            const std::size_t at = rng() % text.size();
            const char c = alphabet[rng() % alphabet.size()];
            switch (rng() % 3) {
                case 0:
                    text[at] = c;
                    break;
                case 1:
                    text.insert(text.begin() + static_cast<long>(at), c);
                    break;
                default:
                    text.erase(at, 1);
                    break;
            }
        }
        const JsonShape shape = json_shape(text);
        if (shape == JsonShape::unsure) {
            continue;
        }
        ++decided;
        if ((shape == JsonShape::object) != parser_object(text)) {
            FAIL("json_shape and the parser disagree on: " << text);
        }
    }
    CHECK(decided > 10000);
}
