// top_floor.hpp: pieces of the branch-free top-k selections of the scans (BM25's accumulator,
// the dense scores): an integer key that orders as a float does, and a floor under the k-th
// largest of a set of values from a histogram of those keys, which no comparison a branch
// predictor must guess goes into.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace scout::detail {

/// An unsigned integer that orders as `v` does among floats that are not NaN; -0 and +0 have
/// the same key, as they compare equal.
[[nodiscard]] inline std::uint32_t order_key(float v) noexcept {
    const auto u = std::bit_cast<std::uint32_t>(v + 0.0f);  // -0 + 0 is +0
    return (u & 0x80000000U) != 0 ? ~u : (u | 0x80000000U);
}

/// The key of a (ToolId-sized) position with its score, ordering as RankOrder does: the larger
/// key is the higher score, then the lower position.
[[nodiscard]] inline std::uint64_t rank_key(float score, std::uint32_t position) noexcept {
    return (std::uint64_t{order_key(score)} << 32U) | ~position;
}
/// rank_key for a score known not to be negative (nor -0): its bits order as it does.
[[nodiscard]] inline std::uint64_t rank_key_not_negative(float score,
                                                         std::uint32_t position) noexcept {
    return (std::uint64_t{std::bit_cast<std::uint32_t>(score) | 0x80000000U} << 32U) | ~position;
}
[[nodiscard]] inline std::uint32_t rank_key_position(std::uint64_t key) noexcept {
    return ~static_cast<std::uint32_t>(key);
}

/// A float no larger than the k-th largest of `values` (none NaN), and -infinity when there are
/// fewer than k or k is 0: the lowest value of the histogram bucket (by the top 12 bits of
/// order_key, an eighth of an octave) where the count from the largest bucket down reaches k.
/// `counts` is scratch, all zeros between calls: only the buckets in use are cleared.
[[nodiscard]] inline float kth_largest_floor(std::span<const float> values,
                                             std::size_t k,
                                             std::vector<std::uint32_t>& counts) {
    constexpr float kNone = -std::numeric_limits<float>::infinity();
    if (k == 0 || values.size() < k) {
        return kNone;
    }
    constexpr unsigned kShift = 20;
    constexpr std::size_t kBuckets = std::size_t{1} << (32 - kShift);
    if (counts.size() != kBuckets) {
        counts.assign(kBuckets, 0);
    }
    std::uint32_t top = 0;
    std::uint32_t bottom = kBuckets - 1;
    for (const float v : values) {
        const std::uint32_t b = order_key(v) >> kShift;
        ++counts[b];
        top = b > top ? b : top;
        bottom = b < bottom ? b : bottom;
    }
    std::uint32_t b = top;
    for (std::size_t seen = counts[b]; seen < k; seen += counts[b]) {
        --b;  // at least k values lie in [bottom, top], so b stays at or above bottom
    }
    if (top - bottom < values.size()) {
        std::fill(counts.begin() + bottom, counts.begin() + top + 1, 0U);
    } else {  // the values are spread wider than they are many
        for (const float v : values) {
            counts[order_key(v) >> kShift] = 0;
        }
    }
    const std::uint32_t lowest = b << kShift;
    if (lowest <= order_key(kNone)) {
        return kNone;
    }
    // The float whose key is `lowest`: no NaN above -infinity's key.
    const std::uint32_t u = (lowest & 0x80000000U) != 0 ? (lowest & 0x7FFFFFFFU) : ~lowest;
    return std::bit_cast<float>(u);
}

}  // namespace scout::detail
