// rrf.cpp: RRF over a handful of short lists (2 x 60 candidates at most). Candidates are merged
// into flat thread-local arrays (a linear id search over a few dozen contiguous ids beats
// hashing), ranked there, and only the top_k survivors become FusedDoc values, so a query
// allocates for its results only.
#include <algorithm>
#include <cstdint>

#include "fusion/rrf.hpp"

namespace scout {
namespace {

struct Candidate {
    ToolId id = 0;
    double score = 0;
    std::uint32_t best_rank = UINT32_MAX;
    std::uint32_t slot = 0;  // row of this candidate in the ranks / scores tables
};

struct Scratch {
    std::vector<ToolId> ids;  // ids[slot], searched linearly
    std::vector<Candidate> candidates;
    std::vector<std::uint32_t> ranks;  // slot * lists + l
    std::vector<float> scores;
};

}  // namespace

std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists, double k,
                               std::size_t top_k) {
    thread_local Scratch s;
    s.ids.clear();
    s.candidates.clear();
    s.ranks.clear();
    s.scores.clear();
    const std::size_t width = lists.size();
    for (std::size_t l = 0; l < width; ++l) {
        const auto& list = lists[l];
        for (std::size_t r = 0; r < list.size(); ++r) {
            const ToolId id = list[r].id;
            auto slot = static_cast<std::size_t>(std::find(s.ids.begin(), s.ids.end(), id) - s.ids.begin());
            if (slot == s.ids.size()) {
                s.ids.push_back(id);
                s.candidates.push_back({id, 0.0, UINT32_MAX, static_cast<std::uint32_t>(slot)});
                s.ranks.resize(s.ranks.size() + width, 0);
                s.scores.resize(s.scores.size() + width, 0.0f);
            }
            if (s.ranks[slot * width + l] != 0) {
                continue;  // a list naming a doc twice counts its first (best) rank only
            }
            const auto rank = static_cast<std::uint32_t>(r + 1);
            Candidate& c = s.candidates[slot];
            s.ranks[slot * width + l] = rank;
            s.scores[slot * width + l] = list[r].score;
            c.score += 1.0 / (k + static_cast<double>(rank));
            c.best_rank = std::min(c.best_rank, rank);
        }
    }
    const auto before = [](const Candidate& a, const Candidate& b) {
        if (a.score != b.score) {
            return a.score > b.score;
        }
        return a.best_rank != b.best_rank ? a.best_rank < b.best_rank : a.id < b.id;
    };
    const std::size_t n = std::min(top_k, s.candidates.size());
    std::partial_sort(s.candidates.begin(), s.candidates.begin() + static_cast<std::ptrdiff_t>(n),
                      s.candidates.end(), before);
    std::vector<FusedDoc> fused(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Candidate& c = s.candidates[i];
        const auto row = static_cast<std::ptrdiff_t>(c.slot * width);
        fused[i].id = c.id;
        fused[i].score = c.score;
        fused[i].ranks.assign(s.ranks.begin() + row, s.ranks.begin() + row + static_cast<std::ptrdiff_t>(width));
        fused[i].scores.assign(s.scores.begin() + row, s.scores.begin() + row + static_cast<std::ptrdiff_t>(width));
    }
    return fused;
}

}  // namespace scout
