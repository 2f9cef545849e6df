// best_scores.hpp: the k best of an array of scores, as the exact scans produce them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "util/topk.hpp"

namespace scout::detail {

/// What best_scores reuses from one call to the next (a scan keeps one per thread).
struct BestScoresScratch {
    std::vector<float> maxima;
    std::vector<std::uint32_t> counts;
    std::vector<std::uint32_t> passing;  // the blocks whose maximum reaches the floor
    std::vector<std::uint64_t> keys;     // never shrunk: the pass writes past the last keeper
};

/// The k best entries of `scores` (none NaN) under RankOrder (score desc, id asc), where entry i
/// has id ids[i] (ascending), or i when `ids` is empty; in no particular order, in `out`. The
/// same set as pushing every entry into a TopKBuffer, without a push per entry: a floor under
/// the k-th largest of the maxima of blocks of four (kth_largest_floor) is one that at least k
/// scores reach, so one pass keeps only the entries at or above it, as integer keys that order
/// as RankOrder does (read from the blocks whose maximum reaches it), and one nth_element
/// cuts them to k.
void best_scores(std::span<const float> scores,
                 std::span<const ToolId> ids,
                 std::size_t k,
                 BestScoresScratch& scratch,
                 std::vector<ScoredDoc>& out);

}  // namespace scout::detail
