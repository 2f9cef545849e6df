// fusion.cpp: RRF, weighted RRF, score blend and the BM25-anchored blend. The lists are short
// (2 x 60 candidates at most), so a linear merge into a small vector beats any hashing.
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

/// Each list's scores scaled to [0, 1] by its own min and max (a flat list maps to 1), times
/// `weights[l] * gates[l]`.
void score_blend(std::vector<FusedDoc>& fused, std::span<const std::vector<ScoredDoc>> lists,
                 std::span<const double> weights, std::span<const double> gates) {
    for (std::size_t l = 0; l < lists.size(); ++l) {
        if (lists[l].empty()) {
            continue;
        }
        const double weight = weights[l] * gates[l];
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
                d.score += weight * norm;
            }
        }
    }
}

/// Gates of the anchored blend: 1 for the anchor (list 0); for every other list, one minus the
/// anchor's confidence when that list's top-1 is also among the anchor's candidates (the two
/// agree on the topic), else 0 (an off-topic list would only add noise).
std::vector<double> anchored_gates(std::span<const std::vector<ScoredDoc>> lists) {
    std::vector<double> gates(lists.size(), 1.0);
    const double open = 1.0 - list_confidence(lists[0]);
    for (std::size_t l = 1; l < lists.size(); ++l) {
        const bool agrees = !lists[l].empty() &&
                            std::any_of(lists[0].begin(), lists[0].end(),
                                        [&](const ScoredDoc& d) { return d.id == lists[l].front().id; });
        gates[l] = agrees ? open : 0.0;
    }
    return gates;
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

/// Moves `id` to the front (if present) and lifts its score to the best one, so the output stays
/// ordered by score.
void pin_first(std::vector<FusedDoc>& fused, ToolId id) {
    auto it = std::find_if(fused.begin(), fused.end(), [&](const FusedDoc& d) { return d.id == id; });
    if (it == fused.end() || it == fused.begin()) {
        return;
    }
    it->score = fused.front().score;
    std::rotate(fused.begin(), it, it + 1);
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

double list_confidence(std::span<const ScoredDoc> list) {
    if (list.size() < 2) {
        return list.empty() ? 0.0 : 1.0;
    }
    const double top = list.front().score;
    const double second = list[1].score;
    const double last = list.back().score;
    return top > last ? std::clamp((top - second) / (top - last), 0.0, 1.0) : 0.0;
}

std::size_t auto_k_cut(std::span<const float> scores, double ratio) {
    if (scores.size() < 2) {
        return scores.size();
    }
    const double top = scores.front();
    const double last = scores.back();
    if (!(top > last)) {
        return scores.size();
    }
    std::size_t n = 1;
    while (n < scores.size() && (static_cast<double>(scores[n]) - last) / (top - last) >= ratio) {
        ++n;
    }
    return n;
}

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
        case FusionMethod::score_blend: {
            const std::vector<double> ones(lists.size(), 1.0);
            score_blend(fused, lists, weights, ones);
            break;
        }
        case FusionMethod::anchored: {
            if (lists.empty() || lists[0].empty()) {  // no anchor: a plain blend of the rest
                const std::vector<double> ones(lists.size(), 1.0);
                score_blend(fused, lists, weights, ones);
                break;
            }
            score_blend(fused, lists, weights, anchored_gates(lists));
            const std::size_t all = fused.size();
            std::vector<FusedDoc> out = finish(std::move(fused), all);
            pin_first(out, lists[0].front().id);
            if (out.size() > top_k) {
                out.resize(top_k);
            }
            return out;
        }
    }
    return finish(std::move(fused), top_k);
}

}  // namespace scout
