// best_scores.cpp: see best_scores.hpp.
#include "dense/best_scores.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace scout::detail {
namespace {

/// Writes the entries at or above `floor` to the front of `kept` (n + 1 slots), as
/// {id_of(j), scores[j]}; returns how many. Branch-free: which entries pass is data the branch
/// predictor cannot learn.
template <class IdOf>
std::size_t keep_from(std::span<const float> scores,
                      float floor,
                      IdOf id_of,
                      std::vector<ScoredDoc>& kept) {
    std::size_t count = 0;
    for (std::size_t j = 0; j < scores.size(); ++j) {
        kept[count] = {id_of(j), scores[j]};
        count += static_cast<std::size_t>(scores[j] >= floor);
    }
    return count;
}

}  // namespace

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
    std::vector<ScoredDoc>& kept = scratch.kept;
    if (kept.size() < n + 1) {
        kept.resize(n + 1);
    }
    const std::size_t count =
        ids.empty() ? keep_from(
                          scores, floor, [](std::size_t j) { return static_cast<ToolId>(j); }, kept)
                    : keep_from(
                          scores, floor, [&](std::size_t j) { return ids[j]; }, kept);
    const auto end = kept.begin() + static_cast<std::ptrdiff_t>(count);
    if (count > k) {
        std::nth_element(
            kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(k - 1), end, RankOrder{});
    }
    out.assign(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(std::min(count, k)));
}

}  // namespace scout::detail
