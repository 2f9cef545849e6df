// hash.hpp: a small stable 64-bit hash (FNV-1a). Stable across runs and platforms, unlike
// std::hash, because names and cache keys derived from it must not change between builds.
#pragma once

#include <cstdint>
#include <string_view>

namespace scout::detail {

inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;

[[nodiscard]] constexpr std::uint64_t fnv1a(std::string_view data,
                                            std::uint64_t h = kFnvOffset) noexcept {
    for (char c : data) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

/// Final avalanche (splitmix64), so that low bits of nearby inputs differ.
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

}  // namespace scout::detail
