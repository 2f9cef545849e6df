// word_hash.hpp: a fast hash for short strings (index terms, words), eight bytes at a time, for
// tables that live only in memory, where std::hash costs more than the rest of a lookup on words
// of a few letters. Nothing persisted may depend on it (fnv1a in hash.hpp is the stable hash).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "util/hash.hpp"

namespace scout::detail {

[[nodiscard]] inline std::uint64_t word_hash(std::string_view s) noexcept {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
    }
    std::uint64_t tail = 0;
    for (std::size_t shift = 0; i < s.size(); ++i, shift += 8) {
        tail |= std::uint64_t{static_cast<unsigned char>(s[i])} << shift;
    }
    return mix64(h ^ tail);
}

/// The same kind of hash for long texts (documents): four independent lanes of 32 bytes, so the
/// multiplications overlap instead of waiting on each other. In-memory use only, as word_hash.
[[nodiscard]] inline std::uint64_t text_hash(std::string_view s) noexcept {
    constexpr std::uint64_t k1 = 0x9E3779B97F4A7C15ULL;
    constexpr std::uint64_t k2 = 0xbf58476d1ce4e5b9ULL;
    constexpr std::uint64_t k3 = 0x94d049bb133111ebULL;
    constexpr std::uint64_t k4 = 0xD6E8FEB86659FD93ULL;
    std::uint64_t lane[4] = {(k1 ^ s.size()) * k3, k2, k3, k4};
    constexpr std::uint64_t kMul[4] = {k2, k3, k4, k1};
    std::size_t i = 0;
    for (; i + 32 <= s.size(); i += 32) {
        for (std::size_t l = 0; l < 4; ++l) {
            std::uint64_t w = 0;
            std::memcpy(&w, s.data() + i + 8 * l, 8);
            lane[l] = (lane[l] ^ w) * kMul[l];
            lane[l] ^= lane[l] >> 29;
        }
    }
    const std::uint64_t h =
        mix64(lane[0]) ^ mix64(lane[1] + k1) ^ mix64(lane[2] + k2) ^ mix64(lane[3] + k3);
    // Rotated, so the length both parts mix in cannot cancel out.
    return mix64(h ^ std::rotl(word_hash(s.substr(i)), 23));
}

}  // namespace scout::detail
