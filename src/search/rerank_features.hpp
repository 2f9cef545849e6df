// rerank_features.hpp: the re-ranker's features of a search's fused candidates, from what the
// search already has: each branch's score and rank, and the query's words against the words of
// each field of the tool (IDF-weighted by the BM25 index's document frequencies).
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "scout/reranker.hpp"
#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"

namespace scout::detail {

using RerankFeatures = std::array<float, kRerankFeatureCount>;

/// One feature row per hit, in the hits' order. Every feature is in [0, 1].
[[nodiscard]] std::vector<RerankFeatures> rerank_features(const Snapshot& snap,
                                                          std::string_view query,
                                                          std::span<const Hit> hits);

}  // namespace scout::detail
