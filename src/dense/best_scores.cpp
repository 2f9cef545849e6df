// best_scores.cpp: see best_scores.hpp.
#include "dense/best_scores.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "simd/kernels.hpp"
#include "util/top_floor.hpp"

namespace scout::detail {

void best_scores(std::span<const float> scores,
                 std::span<const ToolId> ids,
                 std::size_t k,
                 BestScoresScratch& scratch,
                 std::vector<ScoredDoc>& out) {
    out.clear();
    const std::size_t n = scores.size();
    if (k == 0 || n == 0) {
        return;
    }
    // Blocks of four: fine enough that the floor stays tight where neighbouring ids (the tools
    // of one server) score alike, as they do on real catalogs.
    constexpr std::size_t kBlock = 4;
    const std::size_t blocks = n / kBlock;
    float floor = -std::numeric_limits<float>::infinity();
    if (blocks >= k) {
        std::vector<float>& maxima = scratch.maxima;
        maxima.resize(blocks);
        for (std::size_t b = 0; b < blocks; ++b) {
            const float* v = scores.data() + b * kBlock;
            maxima[b] = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
        }
        floor = kth_largest_floor(maxima, k, scratch.counts);
    }
    // The entries at or above the floor, as keys that order as RankOrder does. With no floor
    // (-infinity), every entry.
    std::vector<std::uint64_t>& keys = scratch.keys;
    if (keys.size() < n + simd::kScanBlock) {
        keys.resize(n + simd::kScanBlock);
    }
    const float* v = scores.data();
    std::uint64_t* kept = keys.data();
    std::size_t count = 0;
    const auto keep = [&](std::size_t pos, float above) {
        kept[count] = rank_key(v[pos], static_cast<std::uint32_t>(pos));
        count += static_cast<std::size_t>(v[pos] > above);
    };
    if (floor == -std::numeric_limits<float>::infinity()) {
        for (; count < n; ++count) {
            kept[count] = rank_key(v[count], static_cast<std::uint32_t>(count));
        }
    } else {
        // Only the blocks of four whose maximum passes can hold an entry that does: list them
        // (branch-free), then read their entries, and the last few past the whole blocks. The
        // keys kept, and their order, are those of a pass over every entry.
        const float above = std::nextafter(floor, -std::numeric_limits<float>::infinity());
        const float* maxima = scratch.maxima.data();
        std::vector<std::uint32_t>& passing = scratch.passing;
        passing.resize(blocks);
        std::size_t listed = 0;
        for (std::size_t b = 0; b < blocks; ++b) {
            passing[listed] = static_cast<std::uint32_t>(b);
            listed += static_cast<std::size_t>(maxima[b] > above);
        }
        for (std::size_t i = 0; i < listed; ++i) {
            const std::size_t first = std::size_t{passing[i]} * kBlock;
            for (std::size_t pos = first; pos < first + kBlock; ++pos) {
                keep(pos, above);
            }
        }
        for (std::size_t pos = blocks * kBlock; pos < n; ++pos) {
            keep(pos, above);
        }
    }
    if (count > k) {
        std::nth_element(kept, kept + (k - 1), kept + count, std::greater<>{});
        count = k;
    }
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t j = rank_key_position(kept[i]);
        out[i] = {ids.empty() ? static_cast<ToolId>(j) : ids[j], v[j]};
    }
}

}  // namespace scout::detail
