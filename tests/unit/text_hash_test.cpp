// text_hash_test.cpp: the in-memory hashes of words and texts tell apart what they must.
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "util/word_hash.hpp"

using scout::detail::text_hash;

TEST_CASE("text_hash changes with any one byte, at any length and position", "[hash]") {
    for (const std::size_t length : {0U, 1U, 7U, 8U, 31U, 32U, 33U, 64U, 100U, 257U}) {
        std::string text(length, 'a');
        for (std::size_t i = 0; i < length; ++i) {
            text[i] = static_cast<char>('a' + i % 26);
        }
        const auto base = text_hash(text);
        CHECK(text_hash(text) == base);
        for (std::size_t i = 0; i < length; ++i) {
            std::string edited = text;
            edited[i] = static_cast<char>(edited[i] ^ 0x01);
            CHECK(text_hash(edited) != base);
        }
        CHECK(text_hash(text + '\0') != base);  // a trailing zero byte is a different text
    }
}

TEST_CASE("text_hash spreads similar texts", "[hash]") {
    std::set<std::uint64_t> seen;
    for (int i = 0; i < 10000; ++i) {
        seen.insert(text_hash("tool document number " + std::to_string(i) +
                              " with a description long enough for the four lanes"));
    }
    CHECK(seen.size() == 10000);
}
