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

/// Orders `hits` by the model's score of `features` (one row per hit), best first; equal scores
/// keep their order, so a model of zero weights changes nothing. Each hit's score becomes the
/// model's probability 1 / (1 + e^-s), which descends with the order.
void rerank_hits(const Reranker& model,
                 std::span<const RerankFeatures> features,
                 std::vector<Hit>& hits);

/// The candidates with their features, for training (SearchOptions::rerank_candidates).
[[nodiscard]] std::vector<RerankCandidate> rerank_candidates(
    std::span<const Hit> hits, std::span<const RerankFeatures> features);

}  // namespace scout::detail
