// word_hash.hpp: a fast hash for short strings (index terms, words), eight bytes at a time, for
// tables that live only in memory, where std::hash costs more than the rest of a lookup on words
// of a few letters. Nothing persisted may depend on it (fnv1a in hash.hpp is the stable hash).
#pragma once

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

}  // namespace scout::detail
