// fusion.cpp: the lists are short (2 x 60 candidates at most). Candidates are merged into flat
// thread-local tables (a linear id search over a few dozen contiguous ids beats hashing),
// scored and ranked there, and only the top_k survivors become FusedDoc values, so a query
// allocates for its results only.
#include <algorithm>

#include "fusion/fusion.hpp"

namespace scout {
namespace {

struct Candidate {
    ToolId id = 0;
    double score = 0;
    std::uint32_t best_rank = UINT32_MAX;
    std::uint32_t slot = 0;  // row of this candidate in the ranks / scores tables
};

struct Table {
    std::size_t width = 0;    // number of lists
    std::vector<ToolId> ids;  // ids[slot], searched linearly
    std::vector<Candidate> candidates;
    std::vector<std::uint32_t> ranks;  // slot * width + list, 0 = absent
    std::vector<float> scores;
    [[nodiscard]] std::uint32_t rank(const Candidate& c, std::size_t l) const { return ranks[c.slot * width + l]; }
    [[nodiscard]] float score(const Candidate& c, std::size_t l) const { return scores[c.slot * width + l]; }
};

/// Gathers every candidate with its rank and raw score in each list.
Table& gather(std::span<const std::vector<ScoredDoc>> lists) {
    thread_local Table table;
    Table& t = table;
    t.width = lists.size();
    t.ids.clear();
    t.candidates.clear();
    t.ranks.clear();
    t.scores.clear();
    for (std::size_t l = 0; l < lists.size(); ++l) {
        const auto& list = lists[l];
        for (std::size_t r = 0; r < list.size(); ++r) {
            const ToolId id = list[r].id;
            const auto slot = static_cast<std::size_t>(std::find(t.ids.begin(), t.ids.end(), id) - t.ids.begin());
            if (slot == t.ids.size()) {
                t.ids.push_back(id);
                t.candidates.push_back({id, 0.0, UINT32_MAX, static_cast<std::uint32_t>(slot)});
                t.ranks.resize(t.ranks.size() + t.width, 0);
                t.scores.resize(t.scores.size() + t.width, 0.0f);
            }
            const std::size_t cell = slot * t.width + l;
            if (t.ranks[cell] == 0) {  // a list naming a doc twice counts its first (best) rank
                const auto rank = static_cast<std::uint32_t>(r + 1);
                t.ranks[cell] = rank;
                t.scores[cell] = list[r].score;
                t.candidates[slot].best_rank = std::min(t.candidates[slot].best_rank, rank);
            }
        }
    }
    return t;
}

void score_rrf(Table& t, std::span<const double> weights, double k) {
    for (Candidate& c : t.candidates) {
        for (std::size_t l = 0; l < t.width; ++l) {
            if (const std::uint32_t r = t.rank(c, l); r != 0) {
                c.score += (weights.empty() ? 1.0 : weights[l]) / (k + static_cast<double>(r));
            }
        }
    }
}

/// Each list's scores scaled to [0, 1] by its own min and max (a flat list maps to 1).
void score_blend(Table& t, std::span<const std::vector<ScoredDoc>> lists, std::span<const double> weights) {
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
        for (Candidate& c : t.candidates) {
            if (t.rank(c, l) != 0) {
                const double norm = range > 0 ? (static_cast<double>(t.score(c, l)) - static_cast<double>(lo)) / range : 1.0;
                c.score += weights[l] * norm;
            }
        }
    }
}

std::vector<FusedDoc> finish(Table& t, std::size_t top_k) {
    const auto before = [](const Candidate& a, const Candidate& b) {
        if (a.score != b.score) {
            return a.score > b.score;
        }
        return a.best_rank != b.best_rank ? a.best_rank < b.best_rank : a.id < b.id;
    };
    const std::size_t n = std::min(top_k, t.candidates.size());
    std::partial_sort(t.candidates.begin(), t.candidates.begin() + static_cast<std::ptrdiff_t>(n), t.candidates.end(),
                      before);
    std::vector<FusedDoc> fused(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Candidate& c = t.candidates[i];
        const auto row = static_cast<std::ptrdiff_t>(c.slot * t.width);
        const auto end = row + static_cast<std::ptrdiff_t>(t.width);
        fused[i].id = c.id;
        fused[i].score = c.score;
        fused[i].ranks.assign(t.ranks.begin() + row, t.ranks.begin() + end);
        fused[i].scores.assign(t.scores.begin() + row, t.scores.begin() + end);
    }
    return fused;
}

}  // namespace

std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists, double k, std::size_t top_k) {
    Table& t = gather(lists);
    score_rrf(t, {}, k);
    return finish(t, top_k);
}

std::vector<FusedDoc> fuse(std::span<const std::vector<ScoredDoc>> lists, std::span<const double> weights,
                           const FusionOptions& options, std::size_t top_k) {
    Table& t = gather(lists);
    switch (options.method) {
        case FusionMethod::rrf: score_rrf(t, {}, options.rrf_k); break;
        case FusionMethod::weighted_rrf: score_rrf(t, weights, options.rrf_k); break;
        case FusionMethod::score_blend: score_blend(t, lists, weights); break;
    }
    return finish(t, top_k);
}

}  // namespace scout
