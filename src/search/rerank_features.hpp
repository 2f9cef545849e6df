// rerank_features.hpp: the re-ranker's features of a search's fused candidates, from what the
// search already has: each branch's score and rank, the query's words against the words of
// each field of the tool (IDF-weighted by the BM25 index's document frequencies), and the
// query's word vectors against the tool's (late interaction).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/reranker.hpp"
#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"

namespace scout::detail {

using RerankFeatures = std::array<float, kRerankFeatureCount>;

/// The query as the features read it: its stems in order (stop words out), and per distinct
/// stem its first surface word and its BM25 IDF in the index.
struct RerankQueryWords {
    std::vector<std::string> ordered;
    std::vector<std::string> distinct;
    std::vector<std::string> surface;
    std::vector<double> idf;
    double idf_sum = 0;
    std::string first_bytes;  ///< the first byte of each distinct stem
};

/// One feature row per hit, in the hits' order. Every feature is in [0, 1]. `word_vectors`
/// (may be null: the late-interaction features are then 0) are the embedder's.
[[nodiscard]] std::vector<RerankFeatures> rerank_features(const Snapshot& snap,
                                                          std::string_view query,
                                                          std::span<const Hit> hits,
                                                          const WordVectors* word_vectors);

}  // namespace scout::detail
