// rerank.hpp: the learned re-ranker applied to a search's fused candidates.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "scout/reranker.hpp"
#include "scout/types.hpp"

#include "search/rerank_features.hpp"
#include "snapshot/snapshot.hpp"

namespace scout::detail {

/// Orders the first model.depth `hits` (all when 0; at most one per row of `features`, which
/// holds the first hits' features) by the model's score, best first; equal scores keep their
/// order, so a model of zero weights changes nothing, and the hits after them keep theirs. Each
/// re-ordered hit's score becomes the model's probability 1 / (1 + e^-s); the later hits keep
/// their fused score, capped by the score before them so that scores still descend.
void rerank_hits(const Reranker& model,
                 std::span<const RerankFeatures> features,
                 std::vector<Hit>& hits);

/// The candidates with their features, for training (SearchOptions::rerank_candidates).
[[nodiscard]] std::vector<RerankCandidate> rerank_candidates(
    std::span<const Hit> hits, std::span<const RerankFeatures> features);

}  // namespace scout::detail
