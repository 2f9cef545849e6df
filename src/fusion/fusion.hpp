// fusion.hpp: ranked lists from the branches -> one ranking (RRF, weighted RRF, score blend,
// BM25-anchored blend).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "scout/options.hpp"

#include "util/topk.hpp"

namespace scout::detail {

/// One fused candidate with what each input list said about it (rank 0 = absent, else 1-based).
struct FusedDoc {
    ToolId id = 0;
    double score = 0;
    std::vector<std::uint32_t> ranks;
    std::vector<float> scores;
};

/// Plain RRF: score(d) = sum over lists containing d of 1 / (k + rank).
[[nodiscard]] std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists,
                                             double k,
                                             std::size_t top_k);

/// How clearly a ranked list (scores descending) picks its top-1: (s1 - s2) / (s1 - s_last),
/// in [0, 1]; 1 for a single candidate, 0 for an empty or flat list.
[[nodiscard]] double list_confidence(std::span<const ScoredDoc> list);

/// How much two ranked lists agree on their candidates: the number of ids of `b` also in `a`,
/// over the longer list's length, in [0, 1]; 0 when both are empty.
[[nodiscard]] double list_overlap(std::span<const ScoredDoc> a, std::span<const ScoredDoc> b);

/// How many leading entries of a ranked score list (descending) to keep for automatic top-k:
/// those whose score, min-max normalized over the list, is >= `ratio`. At least 1 for a
/// non-empty list; all of a flat list.
[[nodiscard]] std::size_t auto_k_cut(std::span<const float> scores, double ratio);

/// Fuses lists[i] with weights[i] by `options.method` (plain RRF ignores the weights). Returns the
/// best `top_k`, ordered by score desc, then best single rank, then id asc: deterministic and
/// independent of list order.
[[nodiscard]] std::vector<FusedDoc> fuse(std::span<const std::vector<ScoredDoc>> lists,
                                         std::span<const double> weights,
                                         const FusionOptions& options,
                                         std::size_t top_k);

/// A fused candidate as fuse_rows gives it: its rank (0 = absent) and score in each input list
/// are lists.size() entries in the calling thread's fusion tables, valid until its next fusion.
struct FusedRow {
    ToolId id = 0;
    double score = 0;
    const std::uint32_t* ranks = nullptr;
    const float* scores = nullptr;
};

/// fuse() into `out` without a vector per candidate, for a caller that reads the rows at once.
void fuse_rows(std::span<const std::vector<ScoredDoc>> lists,
               std::span<const double> weights,
               const FusionOptions& options,
               std::size_t top_k,
               std::vector<FusedRow>& out);

}  // namespace scout::detail
