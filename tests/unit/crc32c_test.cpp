// crc32c_test.cpp: the checksum behind every index file section.
#include "persist/crc32c.hpp"

#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

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

TEST_CASE("crc32c's hardware and software paths agree at every length and seed",
          "[persistence][crc32c]") {
    std::string bytes;
    std::uint32_t x = 12345;
    for (int i = 0; i < 1000; ++i) {
        x = x * 1103515245U + 12345U;
        bytes += static_cast<char>(x >> 24U);
    }
    for (std::size_t length = 0; length <= bytes.size(); length += 7) {
        for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
            const std::size_t n = std::min(length, bytes.size() - offset);
            for (std::uint32_t seed : {0U, 0xDEADBEEFU}) {
                REQUIRE(crc32c(bytes.data() + offset, n, seed) ==
                        scout::detail::crc32c_software(bytes.data() + offset, n, seed));
            }
        }
    }
    CHECK(scout::detail::crc32c_software("123456789", 9) == 0xE3069283U);
}

TEST_CASE("crc32c's interleaved streams agree with software on large buffers",
          "[persistence][crc32c]") {
    std::string bytes;
    std::uint32_t x = 777;
    for (int i = 0; i < 400000; ++i) {
        x = x * 1103515245U + 12345U;
        bytes += static_cast<char>(x >> 24U);
    }
    // Around the three-stream block size (3 x 32 KiB) and its multiples, at odd offsets.
    for (std::size_t length : {std::size_t{98303},
                               std::size_t{98304},
                               std::size_t{98305},
                               std::size_t{196608 + 13},
                               std::size_t{399990}}) {
        for (std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
            for (std::uint32_t seed : {0U, 0x12345678U}) {
                INFO(length << " at " << offset);
                REQUIRE(crc32c(bytes.data() + offset, length, seed) ==
                        scout::detail::crc32c_software(bytes.data() + offset, length, seed));
            }
        }
    }
    // Combining two pieces' checksums gives the whole one's.
    const std::uint32_t a = crc32c(bytes.data(), 1000);
    const std::uint32_t b = crc32c(bytes.data() + 1000, 5001);
    CHECK(scout::detail::crc32c_combine(a, b, 5001) == crc32c(bytes.data(), 6001));
}
