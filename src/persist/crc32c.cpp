// crc32c.cpp: slicing-by-8 (Kounavis & Berry, Intel 2005): eight 256-entry tables let the loop
// consume 8 bytes per step with independent lookups.
#include "persist/crc32c.hpp"

#include <array>
#include <cstring>

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

std::uint32_t crc32c_software(const void* data, std::size_t size, std::uint32_t crc) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint32_t c = ~crc;
    while (size >= 8) {
        // Little-endian byte order is spelled out, so the result does not depend on the host.
        const std::uint32_t lo = c ^ (std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8U |
                                      std::uint32_t{p[2]} << 16U | std::uint32_t{p[3]} << 24U);
        c = kTables[7][lo & 0xFFU] ^ kTables[6][(lo >> 8U) & 0xFFU] ^
            kTables[5][(lo >> 16U) & 0xFFU] ^ kTables[4][lo >> 24U] ^ kTables[3][p[4]] ^
            kTables[2][p[5]] ^ kTables[1][p[6]] ^ kTables[0][p[7]];
        p += 8;
        size -= 8;
    }
    while (size-- > 0) {
        c = (c >> 8U) ^ kTables[0][(c ^ *p++) & 0xFFU];
    }
    return ~c;
}

namespace {

/// a * b modulo the polynomial, both reflected (bit 31 is x^0), as zlib's multmodp.
std::uint32_t multiply_mod(std::uint32_t a, std::uint32_t b) noexcept {
    std::uint32_t product = 0;
    for (std::uint32_t m = 1U << 31U; m != 0; m >>= 1U) {
        if ((a & m) != 0) {
            product ^= b;
        }
        b = (b & 1U) != 0 ? (b >> 1U) ^ kPoly : b >> 1U;
    }
    return product;
}

/// x^(8 * bytes) modulo the polynomial: appending that many bytes shifts a checksum by it.
std::uint32_t shift_of(std::size_t bytes) noexcept {
    std::uint32_t power = 1U << 31U;   // x^0
    std::uint32_t square = 1U << 30U;  // x^1, squared up to x^(2^k)
    for (int k = 0; k < 3; ++k) {
        square = multiply_mod(square, square);  // x^8 after three squarings
    }
    for (std::size_t n = bytes; n != 0; n >>= 1U) {
        if ((n & 1U) != 0) {
            power = multiply_mod(power, square);
        }
        square = multiply_mod(square, square);
    }
    return power;
}

}  // namespace

std::uint32_t crc32c_combine(std::uint32_t first,
                             std::uint32_t second,
                             std::size_t second_bytes) noexcept {
    return multiply_mod(shift_of(second_bytes), first) ^ second;
}

#if defined(__x86_64__)
namespace {

/// One stream: the crc32 instruction has a latency of three cycles, so one chain uses a third of
/// its throughput.
__attribute__((target("sse4.2"))) std::uint64_t crc32c_stream(const unsigned char* p,
                                                              std::size_t words,
                                                              std::uint64_t c) noexcept {
    for (std::size_t i = 0; i < words; ++i) {
        std::uint64_t word = 0;
        std::memcpy(&word, p + 8 * i, 8);  // x86 is little-endian, as the software path spells out
        c = __builtin_ia32_crc32di(c, word);
    }
    return c;
}

/// Blocks of three streams, each this long, then combined: three chains in flight hide the
/// instruction's latency.
constexpr std::size_t kStreamBytes = std::size_t{32} << 10U;

/// The SSE4.2 crc32 instruction computes exactly this CRC (Castagnoli, reflected), 8 bytes per
/// instruction, three streams at a time: an index file's sections are hashed at memory speed.
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(const void* data,
                                                             std::size_t size,
                                                             std::uint32_t crc) noexcept {
    static const std::uint32_t stream_shift = shift_of(kStreamBytes);
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t c = ~crc;
    while (size >= 3 * kStreamBytes) {
        std::uint64_t a = c;
        std::uint64_t b = 0xFFFFFFFFU;  // each later stream is a fresh checksum of its bytes
        std::uint64_t d = 0xFFFFFFFFU;
        for (std::size_t i = 0; i < kStreamBytes; i += 8) {
            std::uint64_t wa = 0;
            std::uint64_t wb = 0;
            std::uint64_t wd = 0;
            std::memcpy(&wa, p + i, 8);
            std::memcpy(&wb, p + kStreamBytes + i, 8);
            std::memcpy(&wd, p + 2 * kStreamBytes + i, 8);
            a = __builtin_ia32_crc32di(a, wa);
            b = __builtin_ia32_crc32di(b, wb);
            d = __builtin_ia32_crc32di(d, wd);
        }
        // Finalized checksums combine as zlib's crc32_combine does.
        std::uint32_t whole = ~static_cast<std::uint32_t>(a);
        whole = multiply_mod(stream_shift, whole) ^ ~static_cast<std::uint32_t>(b);
        whole = multiply_mod(stream_shift, whole) ^ ~static_cast<std::uint32_t>(d);
        c = ~whole;
        p += 3 * kStreamBytes;
        size -= 3 * kStreamBytes;
    }
    c = crc32c_stream(p, size / 8, c);
    p += size / 8 * 8;
    size %= 8;
    auto c32 = static_cast<std::uint32_t>(c);
    while (size-- > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    }
    return ~c32;
}

const bool kHasSse42 = __builtin_cpu_supports("sse4.2");

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc) noexcept {
    return kHasSse42 ? crc32c_sse42(data, size, crc) : crc32c_software(data, size, crc);
}
#else
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc) noexcept {
    return crc32c_software(data, size, crc);
}
#endif

}  // namespace scout::detail
