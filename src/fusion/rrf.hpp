// rrf.hpp: Reciprocal Rank Fusion of ranked lists (Cormack, Clarke & Buettcher, SIGIR 2009).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "util/topk.hpp"

namespace scout {

/// One fused candidate with what each input list said about it (rank 0 = absent, else 1-based).
struct FusedDoc {
    ToolId id = 0;
    double score = 0;
    std::vector<std::uint32_t> ranks;
    std::vector<float> scores;
};

/// score(d) = sum over lists containing d of 1 / (k + rank). Returns the best `top_k`, ordered by
/// score desc, then best single rank, then id asc: deterministic and independent of list order.
[[nodiscard]] std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists, double k,
                                             std::size_t top_k);

}  // namespace scout
