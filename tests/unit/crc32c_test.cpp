// crc32c_test.cpp: the checksum behind every index file section.
#include <string>

#include <catch2/catch.hpp>

#include "persist/crc32c.hpp"

using scout::detail::crc32c;

TEST_CASE("crc32c matches the standard check values", "[persistence][crc32c]") {
    const std::string check = "123456789";
    CHECK(crc32c(check.data(), check.size()) == 0xE3069283U);
    CHECK(crc32c("", 0) == 0U);
    // RFC 3720 (iSCSI) B.4: 32 bytes of zeros, of 0xFF, and an ascending sequence.
    std::string zeros(32, '\0');
    CHECK(crc32c(zeros.data(), zeros.size()) == 0x8A9136AAU);
    std::string ones(32, '\xFF');
    CHECK(crc32c(ones.data(), ones.size()) == 0x62A8AB43U);
    std::string ascending(32, '\0');
    for (int i = 0; i < 32; ++i) {
        ascending[static_cast<std::size_t>(i)] = static_cast<char>(i);
    }
    CHECK(crc32c(ascending.data(), ascending.size()) == 0x46DD794EU);
}

TEST_CASE("crc32c can be computed in pieces at any split", "[persistence][crc32c]") {
    std::string text;
    for (int i = 0; i < 300; ++i) {
        text += static_cast<char>((i * 37) & 0xFF);
    }
    const std::uint32_t whole = crc32c(text.data(), text.size());
    for (std::size_t split = 0; split <= text.size(); ++split) {
        const std::uint32_t a = crc32c(text.data(), split);
        REQUIRE(crc32c(text.data() + split, text.size() - split, a) == whole);
    }
}
