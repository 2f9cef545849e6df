// rrf.cpp: RRF over a handful of short lists (2 x 60 candidates at most), so a linear merge
// into a small vector beats any hashing.
#include <algorithm>

#include "fusion/rrf.hpp"

namespace scout {

std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists, double k,
                               std::size_t top_k) {
    std::vector<FusedDoc> fused;
    for (std::size_t l = 0; l < lists.size(); ++l) {
        const auto& list = lists[l];
        for (std::size_t r = 0; r < list.size(); ++r) {
            auto it = std::find_if(fused.begin(), fused.end(),
                                   [&](const FusedDoc& d) { return d.id == list[r].id; });
            if (it == fused.end()) {
                fused.push_back({list[r].id, 0.0, std::vector<std::uint32_t>(lists.size(), 0),
                                 std::vector<float>(lists.size(), 0.0f)});
                it = fused.end() - 1;
            }
            if (it->ranks[l] != 0) {
                continue;  // a list naming a doc twice counts its first (best) rank only
            }
            const auto rank = static_cast<std::uint32_t>(r + 1);
            it->ranks[l] = rank;
            it->scores[l] = list[r].score;
            it->score += 1.0 / (k + static_cast<double>(rank));
        }
    }
    const auto best_rank = [](const FusedDoc& d) {
        std::uint32_t best = UINT32_MAX;
        for (std::uint32_t r : d.ranks) {
            if (r != 0) {
                best = std::min(best, r);
            }
        }
        return best;
    };
    std::sort(fused.begin(), fused.end(), [&](const FusedDoc& a, const FusedDoc& b) {
        if (a.score != b.score) {
            return a.score > b.score;
        }
        const auto ra = best_rank(a);
        const auto rb = best_rank(b);
        return ra != rb ? ra < rb : a.id < b.id;
    });
    if (fused.size() > top_k) {
        fused.resize(top_k);
    }
    return fused;
}

}  // namespace scout
