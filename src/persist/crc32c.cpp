// crc32c.cpp: slicing-by-8 (Kounavis & Berry, Intel 2005): eight 256-entry tables let the loop
// consume 8 bytes per step with independent lookups.
#include <array>
#include <cstring>

#include "persist/crc32c.hpp"

namespace scout::detail {
namespace {

constexpr std::uint32_t kPoly = 0x82F63B78U;

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) {
            c = (c & 1U) != 0 ? (c >> 1U) ^ kPoly : c >> 1U;
        }
        t[0][i] = c;
    }
    for (std::size_t s = 1; s < 8; ++s) {
        for (std::size_t i = 0; i < 256; ++i) {
            t[s][i] = (t[s - 1][i] >> 8U) ^ t[0][t[s - 1][i] & 0xFFU];
        }
    }
    return t;
}

constexpr Tables kTables = make_tables();

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint32_t c = ~crc;
    while (size >= 8) {
        // Little-endian byte order is spelled out, so the result does not depend on the host.
        const std::uint32_t lo = c ^ (std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8U |
                                      std::uint32_t{p[2]} << 16U | std::uint32_t{p[3]} << 24U);
        c = kTables[7][lo & 0xFFU] ^ kTables[6][(lo >> 8U) & 0xFFU] ^ kTables[5][(lo >> 16U) & 0xFFU] ^
            kTables[4][lo >> 24U] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
            kTables[0][p[7]];
        p += 8;
        size -= 8;
    }
    while (size-- > 0) {
        c = (c >> 8U) ^ kTables[0][(c ^ *p++) & 0xFFU];
    }
    return ~c;
}

}  // namespace scout::detail
