// fusion.cpp: the lists are short (2 x 60 candidates at most), so a linear merge into a small
// vector beats any hashing.
#include <algorithm>

#include "fusion/fusion.hpp"

namespace scout {
namespace {

/// Gathers every candidate with its rank and raw score in each list.
std::vector<FusedDoc> gather(std::span<const std::vector<ScoredDoc>> lists) {
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
            if (it->ranks[l] == 0) {  // a list naming a doc twice counts its first (best) rank
                it->ranks[l] = static_cast<std::uint32_t>(r + 1);
                it->scores[l] = list[r].score;
            }
        }
    }
    return fused;
}

void score_rrf(std::vector<FusedDoc>& fused, std::span<const double> weights, double k) {
    for (FusedDoc& d : fused) {
        for (std::size_t l = 0; l < d.ranks.size(); ++l) {
            if (d.ranks[l] != 0) {
                d.score += weights[l] / (k + static_cast<double>(d.ranks[l]));
            }
        }
    }
}

/// Each list's scores scaled to [0, 1] by its own min and max (a flat list maps to 1).
void score_blend(std::vector<FusedDoc>& fused, std::span<const std::vector<ScoredDoc>> lists,
                 std::span<const double> weights) {
    for (std::size_t l = 0; l < lists.size(); ++l) {
        if (lists[l].empty()) {
            continue;
        }
        float lo = lists[l].front().score;
        float hi = lo;
        for (const ScoredDoc& d : lists[l]) {
            lo = std::min(lo, d.score);
            hi = std::max(hi, d.score);
        }
        const double range = static_cast<double>(hi) - static_cast<double>(lo);
        for (FusedDoc& d : fused) {
            if (d.ranks[l] != 0) {
                const double norm = range > 0 ? (static_cast<double>(d.scores[l]) - static_cast<double>(lo)) / range : 1.0;
                d.score += weights[l] * norm;
            }
        }
    }
}

std::uint32_t best_rank(const FusedDoc& d) {
    std::uint32_t best = UINT32_MAX;
    for (std::uint32_t r : d.ranks) {
        if (r != 0) {
            best = std::min(best, r);
        }
    }
    return best;
}

std::vector<FusedDoc> finish(std::vector<FusedDoc> fused, std::size_t top_k) {
    std::sort(fused.begin(), fused.end(), [](const FusedDoc& a, const FusedDoc& b) {
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

}  // namespace

std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists, double k, std::size_t top_k) {
    const std::vector<double> ones(lists.size(), 1.0);
    return fuse(lists, ones, FusionOptions{.method = FusionMethod::rrf, .rrf_k = k}, top_k);
}

std::vector<FusedDoc> fuse(std::span<const std::vector<ScoredDoc>> lists, std::span<const double> weights,
                           const FusionOptions& options, std::size_t top_k) {
    std::vector<FusedDoc> fused = gather(lists);
    switch (options.method) {
        case FusionMethod::rrf: {
            const std::vector<double> ones(lists.size(), 1.0);
            score_rrf(fused, ones, options.rrf_k);
            break;
        }
        case FusionMethod::weighted_rrf: score_rrf(fused, weights, options.rrf_k); break;
        case FusionMethod::score_blend: score_blend(fused, lists, weights); break;
    }
    return finish(std::move(fused), top_k);
}

}  // namespace scout
