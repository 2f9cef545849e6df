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
    // The entries at or above the floor, as keys that order as RankOrder does; the blocks of
    // the scan with none are skipped whole. With no floor (-infinity), every entry.
    std::vector<std::uint64_t>& keys = scratch.keys;
    if (keys.size() < n + simd::kScanBlock) {
        keys.resize(n + simd::kScanBlock);
    }
    const float* v = scores.data();
    std::uint64_t* kept = keys.data();
    std::size_t count = 0;
    if (floor == -std::numeric_limits<float>::infinity()) {
        for (; count < n; ++count) {
            kept[count] = rank_key(v[count], static_cast<std::uint32_t>(count));
        }
    } else {
        const simd::Kernels& kern = simd::active();
        const float above = std::nextafter(floor, -std::numeric_limits<float>::infinity());
        std::size_t pos = 0;
        while ((pos = kern.next_above(v, pos, n, above)) < n) {
            for (const std::size_t end = std::min(pos + simd::kScanBlock, n); pos < end; ++pos) {
                kept[count] = rank_key(v[pos], static_cast<std::uint32_t>(pos));
                count += static_cast<std::size_t>(v[pos] > above);
            }
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
