// fusion.cpp: RRF, weighted RRF, score blend, the BM25-anchored blend and the agreement-gated
// blend. The lists are short
// (2 x 60 candidates at most). Candidates are merged into flat thread-local tables (a linear id
// search over a few dozen contiguous ids beats hashing), scored and ranked there, and only the
// top_k survivors become FusedDoc values (each with its small rank and score vectors).
#include "fusion/fusion.hpp"

#include <algorithm>
#include <cmath>

#include "util/thread_scratch.hpp"

namespace scout::detail {
namespace {

struct Candidate {
    ToolId id = 0;
    double score = 0;
    std::uint32_t best_rank = UINT32_MAX;
    std::uint32_t slot = 0;  // row of this candidate in the ranks / scores tables
};

struct Table {
    std::size_t width = 0;    // number of lists
    std::vector<ToolId> ids;  // ids[slot]
    std::vector<Candidate> candidates;
    std::vector<std::uint32_t> ranks;  // slot * width + list, 0 = absent
    std::vector<float> scores;
    /// Open addressing, id -> slot + 1 (0: empty), at least twice the candidates' count.
    std::vector<std::uint32_t> where;
    [[nodiscard]] std::uint32_t rank(const Candidate& c, std::size_t l) const {
        return ranks[c.slot * width + l];
    }
    [[nodiscard]] float score(const Candidate& c, std::size_t l) const {
        return scores[c.slot * width + l];
    }
};

/// Gathers every candidate with its rank and raw score in each list, in order of first
/// appearance (list by list, rank by rank).
Table& gather(std::span<const std::vector<ScoredDoc>> lists) {
    Table& t = thread_scratch<Table>();
    t.width = lists.size();
    t.ids.clear();
    t.candidates.clear();
    t.ranks.clear();
    t.scores.clear();
    std::size_t total = 0;
    for (const auto& list : lists) {
        total += list.size();
    }
    std::size_t size = 16;
    while (size < 2 * total) {
        size *= 2;
    }
    t.where.assign(size, 0);
    const std::size_t mask = size - 1;
    for (std::size_t l = 0; l < lists.size(); ++l) {
        const auto& list = lists[l];
        for (std::size_t r = 0; r < list.size(); ++r) {
            const ToolId id = list[r].id;
            std::size_t h = (static_cast<std::size_t>(id) * 0x9E3779B97F4A7C15ULL) >> 32U;
            while (t.where[h & mask] != 0 && t.ids[t.where[h & mask] - 1] != id) {
                ++h;
            }
            std::uint32_t& entry = t.where[h & mask];
            if (entry == 0) {
                entry = static_cast<std::uint32_t>(t.ids.size() + 1);
                t.ids.push_back(id);
                t.candidates.push_back({id, 0.0, UINT32_MAX, entry - 1});
                t.ranks.resize(t.ranks.size() + t.width, 0);
                t.scores.resize(t.scores.size() + t.width, 0.0f);
            }
            const std::size_t slot = entry - 1;
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

/// Each list's scores scaled to [0, 1] by its own min and max (a flat list maps to 1), times
/// `weights[l] * gates[l]` (no gates: 1).
/// With `first_by_top`, the first list's scores are divided by its top score instead (when that
/// is positive): its candidates keep how close they came to the best, so near-ties stay near.
void score_blend(Table& t,
                 std::span<const std::vector<ScoredDoc>> lists,
                 std::span<const double> weights,
                 std::span<const double> gates,
                 bool first_by_top = false) {
    for (std::size_t l = 0; l < lists.size(); ++l) {
        if (lists[l].empty()) {
            continue;
        }
        const double weight = weights[l] * (gates.empty() ? 1.0 : gates[l]);
        float lo = lists[l].front().score;
        float hi = lo;
        for (const ScoredDoc& d : lists[l]) {
            lo = std::min(lo, d.score);
            hi = std::max(hi, d.score);
        }
        const double range = static_cast<double>(hi) - static_cast<double>(lo);
        const bool relative = first_by_top && l == 0 && hi > 0.0f;
        for (Candidate& c : t.candidates) {
            if (t.rank(c, l) != 0) {
                const auto s = static_cast<double>(t.score(c, l));
                const double norm = relative    ? s / static_cast<double>(hi)
                                    : range > 0 ? (s - static_cast<double>(lo)) / range
                                                : 1.0;
                c.score += weight * norm;
            }
        }
    }
}

/// Gates of the anchored blend: 1 for the anchor (list 0); for every other list, one minus the
/// anchor's confidence, times that list's own confidence to the power `confidence_power`, when
/// its top-1 is also among the anchor's candidates (the two agree on the topic), else 0 (an
/// off-topic list would only add noise).
std::vector<double> anchored_gates(std::span<const std::vector<ScoredDoc>> lists,
                                   double confidence_power) {
    std::vector<double> gates(lists.size(), 1.0);
    const double open = 1.0 - list_confidence(lists[0]);
    for (std::size_t l = 1; l < lists.size(); ++l) {
        const bool agrees = !lists[l].empty() &&
                            std::any_of(lists[0].begin(), lists[0].end(), [&](const ScoredDoc& d) {
                                return d.id == lists[l].front().id;
                            });
        const double own =
            confidence_power > 0.0 ? std::pow(list_confidence(lists[l]), confidence_power) : 1.0;
        gates[l] = agrees ? open * own : 0.0;
    }
    return gates;
}

/// Gates of the agreement-gated blend: 1 for BM25 (list 0); for every other list, 1 when its
/// top-1 is among BM25's first agreement_depth candidates, else disagreement_gate, times its own
/// confidence to gated_confidence_power, times the share of candidates it has in common with
/// BM25 to overlap_power. Agreement says the dense list is on topic; its confidence says how
/// clearly it prefers its top-1; the overlap says how much of the candidate pool the two
/// branches see alike, which is low for a query the dense branch misreads.
std::vector<double> agreement_gates(std::span<const std::vector<ScoredDoc>> lists,
                                    const FusionOptions& options) {
    std::vector<double> gates(lists.size(), 1.0);
    const std::size_t depth = std::min(options.agreement_depth, lists[0].size());
    for (std::size_t l = 1; l < lists.size(); ++l) {
        if (lists[l].empty()) {
            gates[l] = 0.0;
            continue;
        }
        const bool agrees =
            std::any_of(lists[0].begin(),
                        lists[0].begin() + static_cast<std::ptrdiff_t>(depth),
                        [&](const ScoredDoc& d) { return d.id == lists[l].front().id; });
        const double own = options.gated_confidence_power > 0.0
                               ? std::pow(list_confidence(lists[l]), options.gated_confidence_power)
                               : 1.0;
        const double overlap =
            options.overlap_power > 0.0
                ? std::pow(list_overlap(lists[0], lists[l]), options.overlap_power)
                : 1.0;
        gates[l] = (agrees ? 1.0 : options.disagreement_gate) * own * overlap;
    }
    return gates;
}

/// Moves `id` to the front (if present) and lifts its score to the best one, so the output stays
/// ordered by score.
void pin_first(std::vector<FusedRow>& fused, ToolId id) {
    auto it =
        std::find_if(fused.begin(), fused.end(), [&](const FusedRow& d) { return d.id == id; });
    if (it == fused.end() || it == fused.begin()) {
        return;
    }
    it->score = fused.front().score;
    std::rotate(fused.begin(), it, it + 1);
}

/// The best `top_k` candidates, ordered, as rows pointing into the table.
void finish(Table& t, std::size_t top_k, std::vector<FusedRow>& out) {
    const auto before = [](const Candidate& a, const Candidate& b) {
        if (a.score != b.score) {
            return a.score > b.score;
        }
        return a.best_rank != b.best_rank ? a.best_rank < b.best_rank : a.id < b.id;
    };
    const std::size_t n = std::min(top_k, t.candidates.size());
    std::partial_sort(t.candidates.begin(),
                      t.candidates.begin() + static_cast<std::ptrdiff_t>(n),
                      t.candidates.end(),
                      before);
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Candidate& c = t.candidates[i];
        out[i] = {
            c.id, c.score, t.ranks.data() + c.slot * t.width, t.scores.data() + c.slot * t.width};
    }
}

}  // namespace

double list_confidence(std::span<const ScoredDoc> list) {
    if (list.size() < 2) {
        return list.empty() ? 0.0 : 1.0;
    }
    const auto top = static_cast<double>(list.front().score);
    const auto second = static_cast<double>(list[1].score);
    const auto last = static_cast<double>(list.back().score);
    return top > last ? std::clamp((top - second) / (top - last), 0.0, 1.0) : 0.0;
}

double list_overlap(std::span<const ScoredDoc> a, std::span<const ScoredDoc> b) {
    const std::size_t longer = std::max(a.size(), b.size());
    if (longer == 0) {
        return 0.0;
    }
    std::size_t shared = 0;
    for (const ScoredDoc& d : b) {
        shared += static_cast<std::size_t>(
            std::any_of(a.begin(), a.end(), [&](const ScoredDoc& x) { return x.id == d.id; }));
    }
    return static_cast<double>(std::min(shared, longer)) / static_cast<double>(longer);
}

std::size_t auto_k_cut(std::span<const float> scores, double ratio) {
    if (scores.size() < 2) {
        return scores.size();
    }
    const auto top = static_cast<double>(scores.front());
    const auto last = static_cast<double>(scores.back());
    if (!(top > last)) {
        return scores.size();
    }
    std::size_t n = 1;
    while (n < scores.size() && (static_cast<double>(scores[n]) - last) / (top - last) >= ratio) {
        ++n;
    }
    return n;
}

namespace {

/// FusedDocs that own copies of the rows' ranks and scores.
std::vector<FusedDoc> owned(const std::vector<FusedRow>& rows, std::size_t width) {
    std::vector<FusedDoc> out(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out[i].id = rows[i].id;
        out[i].score = rows[i].score;
        out[i].ranks.assign(rows[i].ranks, rows[i].ranks + width);
        out[i].scores.assign(rows[i].scores, rows[i].scores + width);
    }
    return out;
}

}  // namespace

std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists,
                               double k,
                               std::size_t top_k) {
    Table& t = gather(lists);
    score_rrf(t, {}, k);
    std::vector<FusedRow> rows;
    finish(t, top_k, rows);
    return owned(rows, lists.size());
}

void fuse_rows(std::span<const std::vector<ScoredDoc>> lists,
               std::span<const double> weights,
               const FusionOptions& options,
               std::size_t top_k,
               std::vector<FusedRow>& out) {
    Table& t = gather(lists);
    switch (options.method) {
        case FusionMethod::rrf:
            score_rrf(t, {}, options.rrf_k);
            break;
        case FusionMethod::weighted_rrf:
            score_rrf(t, weights, options.rrf_k);
            break;
        case FusionMethod::score_blend:
            score_blend(t, lists, weights, {});
            break;
        case FusionMethod::anchored: {
            if (lists.empty() || lists[0].empty()) {  // no anchor: a plain blend of the rest
                score_blend(t, lists, weights, {});
                break;
            }
            const std::vector<double> gates = anchored_gates(lists, options.dense_confidence_power);
            score_blend(t, lists, weights, gates);
            finish(t, t.candidates.size(), out);
            pin_first(out, lists[0].front().id);
            if (out.size() > top_k) {
                out.resize(top_k);
            }
            return;
        }
        case FusionMethod::gated: {
            if (lists.empty() || lists[0].empty()) {  // no BM25 list: a plain blend of the rest
                score_blend(t, lists, weights, {});
                break;
            }
            std::vector<double> gated_weights(weights.begin(), weights.end());
            for (std::size_t l = 1; l < gated_weights.size(); ++l) {
                gated_weights[l] = options.gated_dense_weight;
            }
            score_blend(t,
                        lists,
                        gated_weights,
                        agreement_gates(lists, options),
                        options.gated_relative_bm25);
            break;
        }
    }
    finish(t, top_k, out);
}

std::vector<FusedDoc> fuse(std::span<const std::vector<ScoredDoc>> lists,
                           std::span<const double> weights,
                           const FusionOptions& options,
                           std::size_t top_k) {
    std::vector<FusedRow> rows;
    fuse_rows(lists, weights, options, top_k, rows);
    return owned(rows, lists.size());
}

}  // namespace scout::detail
