// phrasing_fusion.cpp: see phrasing_fusion.hpp. Why the top score calibrates a list: the scores
// of one phrasing are on that phrasing's scale (BM25 grows with the query's length and rare
// words; the hybrid score is already relative to the BM25 top), so only ratios within a list
// compare across lists. Ranks (RRF) would drop how far below the top a tool is, which is what
// tells a strong match from a weak one.
#include "search/phrasing_fusion.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace scout::detail {
namespace {

struct Evidence {
    double best = 0;
    double total = 0;
    std::uint32_t best_phrasing = 0;
    std::uint32_t best_rank = 0;
    bool seen = false;
};

}  // namespace

std::vector<PhrasingHit> fuse_phrasings(std::span<const std::vector<ScoredDoc>> lists,
                                        double agreement,
                                        std::size_t top_k) {
    std::unordered_map<ToolId, Evidence> by_tool;
    for (std::size_t p = 0; p < lists.size(); ++p) {
        const std::vector<ScoredDoc>& list = lists[p];
        if (list.empty()) {
            continue;
        }
        const auto top = static_cast<double>(
            std::max_element(list.begin(), list.end(), [](const ScoredDoc& a, const ScoredDoc& b) {
                return a.score < b.score;
            })->score);
        const bool scaled = std::isfinite(top) && top > 0;
        for (std::size_t r = 0; r < list.size(); ++r) {
            const double s = scaled ? std::clamp(double(list[r].score) / top, 0.0, 1.0) : 0.0;
            Evidence& e = by_tool[list[r].id];
            e.total += s;
            const auto rank = static_cast<std::uint32_t>(r + 1);
            // Lists come in phrasing order, so on equal scores the earlier phrasing stays best.
            if (!e.seen || s > e.best || (s == e.best && rank < e.best_rank)) {
                e.best = s;
                e.best_phrasing = static_cast<std::uint32_t>(p);
                e.best_rank = rank;
            }
            e.seen = true;
        }
    }
    const double others = lists.size() > 1 ? double(lists.size() - 1) : 1.0;
    std::vector<PhrasingHit> out;
    out.reserve(by_tool.size());
    for (const auto& [id, e] : by_tool) {
        const double rest = (e.total - e.best) / others;  // absent phrasings count as 0
        out.push_back(PhrasingHit{id, e.best + agreement * rest, e.best_phrasing, e.best_rank});
    }
    std::sort(out.begin(), out.end(), [](const PhrasingHit& a, const PhrasingHit& b) {
        if (a.score != b.score) {
            return a.score > b.score;
        }
        if (a.best_rank != b.best_rank) {
            return a.best_rank < b.best_rank;
        }
        if (a.best_phrasing != b.best_phrasing) {
            return a.best_phrasing < b.best_phrasing;
        }
        return a.id < b.id;
    });
    out.resize(std::min(out.size(), top_k));
    return out;
}

}  // namespace scout::detail
