// pretokenizer_test.cpp: the cl100k/o200k split patterns and the Unicode class table (no rank
// files needed).
#include "tokens/pretokenizer.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tokens/unicode_tables.hpp"

namespace {

using scout::TokenEncoding;

std::vector<std::string> split(const std::string& text, TokenEncoding encoding) {
    const auto decoded = scout::detail::tokens::decode_utf8(text);
    std::vector<std::string> out;
    for (const auto& p : scout::detail::tokens::split_pieces(decoded.cps, encoding)) {
        out.push_back(decoded.bytes.substr(decoded.offset[p.begin],
                                           decoded.offset[p.end] - decoded.offset[p.begin]));
    }
    return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("unicode classes", "[tokens]") {
    using scout::detail::tokens::cp_class;
    using scout::detail::tokens::CpClass;
    CHECK(cp_class(U'A') == CpClass::kUpper);
    CHECK(cp_class(U'z') == CpClass::kLower);
    CHECK(cp_class(U'5') == CpClass::kNumber);
    CHECK(cp_class(U' ') == CpClass::kSpace);
    CHECK(cp_class(U'!') == CpClass::kOther);
    CHECK(cp_class(0x01C5) == CpClass::kTitle);        // ǅ
    CHECK(cp_class(0x02B0) == CpClass::kModifier);     // ʰ
    CHECK(cp_class(0x4E2D) == CpClass::kOtherLetter);  // 中
    CHECK(cp_class(0x0301) == CpClass::kMark);
    CHECK(cp_class(0x00BD) == CpClass::kNumber);  // ½
    CHECK(cp_class(0x3000) == CpClass::kSpace);
    CHECK(cp_class(0xFEFF) == CpClass::kSpace);
    CHECK(cp_class(0x1F600) == CpClass::kOther);  // emoji
    CHECK(cp_class(0x10FFFF) == CpClass::kOther);
    CHECK(cp_class(0x1D518) == CpClass::kUpper);  // 𝔘
}

TEST_CASE("cl100k split", "[tokens]") {
    const auto cl = TokenEncoding::cl100k_base;
    CHECK(split("hello world", cl) == V{"hello", " world"});
    CHECK(split("I'm DON'T", cl) == V{"I", "'m", " DON", "'T"});
    CHECK(split("HelloWorld", cl) == V{"HelloWorld"});
    CHECK(split("12345", cl) == V{"123", "45"});
    CHECK(split("a  b", cl) == V{"a", " ", " b"});
    CHECK(split("x \n", cl) == V{"x", " \n"});
    CHECK(split("a\n\n  b", cl) == V{"a", "\n\n", " ", " b"});
    CHECK(split("end  ", cl) == V{"end", "  "});
    CHECK(split(" {\"a\": 1}", cl) == V{" {\"", "a", "\":", " ", "1", "}"});
    CHECK(split("!\n/x", cl) == V{"!\n", "/x"});
    CHECK(split("", cl).empty());
}

TEST_CASE("o200k split", "[tokens]") {
    const auto o2 = TokenEncoding::o200k_base;
    CHECK(split("hello world", o2) == V{"hello", " world"});
    CHECK(split("HelloWorld", o2) == V{"Hello", "World"});
    CHECK(split("XMLHttpRequest", o2) == V{"XMLHttp", "Request"});
    CHECK(split("don't", o2) == V{"don't"});
    CHECK(split("DON'T", o2) == V{"DON'T"});
    CHECK(split("!\n/x", o2) == V{"!\n/", "x"});
    CHECK(split("a\n\n  b", o2) == V{"a", "\n\n", " ", " b"});
    CHECK(split("tail \t ", o2) == V{"tail", " \t "});
    CHECK(split("e\xCC\x81t\xC3\xA9", o2) ==
          V{"e\xCC\x81t\xC3\xA9"});  // combining mark inside a word
}

TEST_CASE("malformed UTF-8 decodes to U+FFFD per bad byte", "[tokens]") {
    const auto d = scout::detail::tokens::decode_utf8(std::string("a\xff\xC3", 3));
    CHECK(d.cps == std::u32string{U'a', 0xFFFD, 0xFFFD});
    CHECK(d.bytes == "a\xEF\xBF\xBD\xEF\xBF\xBD");
    CHECK(d.offset.size() == 4);
}
