// best_scores.cpp: see best_scores.hpp.
#include "dense/best_scores.hpp"

#include <algorithm>
#include <functional>
#include <limits>

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
        const auto kth = maxima.begin() + static_cast<std::ptrdiff_t>(k - 1);
        std::nth_element(maxima.begin(), kth, maxima.end(), std::greater<>{});
        floor = *kth;
    }
    // Branch-free: which entries pass is data the branch predictor cannot learn.
    std::vector<ScoredDoc>& kept = scratch.kept;
    if (kept.size() < n + 1) {
        kept.resize(n + 1);
    }
    std::size_t count = 0;
    for (std::size_t j = 0; j < n; ++j) {
        kept[count] = {ids.empty() ? static_cast<ToolId>(j) : ids[j], scores[j]};
        count += static_cast<std::size_t>(scores[j] >= floor);
    }
    const auto end = kept.begin() + static_cast<std::ptrdiff_t>(count);
    if (count > k) {
        std::nth_element(
            kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(k - 1), end, RankOrder{});
    }
    out.assign(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(std::min(count, k)));
}

}  // namespace scout::detail
