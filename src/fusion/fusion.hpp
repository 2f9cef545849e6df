// fusion.hpp: ranked lists from the branches -> one ranking (RRF, weighted RRF, score blend).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "scout/options.hpp"
#include "util/topk.hpp"

namespace scout {

/// One fused candidate with what each input list said about it (rank 0 = absent, else 1-based).
struct FusedDoc {
    ToolId id = 0;
    double score = 0;
    std::vector<std::uint32_t> ranks;
    std::vector<float> scores;
};

/// Plain RRF: score(d) = sum over lists containing d of 1 / (k + rank).
[[nodiscard]] std::vector<FusedDoc> rrf_fuse(std::span<const std::vector<ScoredDoc>> lists, double k,
                                             std::size_t top_k);

/// Fuses lists[i] with weights[i] by `options.method` (plain RRF ignores the weights). Returns the
/// best `top_k`, ordered by score desc, then best single rank, then id asc: deterministic and
/// independent of list order.
[[nodiscard]] std::vector<FusedDoc> fuse(std::span<const std::vector<ScoredDoc>> lists,
                                         std::span<const double> weights, const FusionOptions& options,
                                         std::size_t top_k);

}  // namespace scout
