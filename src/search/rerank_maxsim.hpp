// rerank_maxsim.hpp: the re-ranker's late-interaction score (ColBERT's MaxSim over static word
// vectors): each query word meets its closest word of the tool, so "remove" finds "delete"
// where a single pooled vector would blur both into the rest of the text.
#pragma once

#include <span>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/types.hpp"

#include "search/rerank_features.hpp"

namespace scout::detail {

/// Per hit: the IDF-weighted mean over the query's distinct words of the best cosine between
/// the word and a word of the tool's name, title and description (a query word the model has
/// no vector for counts 1 when the tool holds its stem, else 0). Empty when `vectors` is null
/// or the query has no words.
[[nodiscard]] std::vector<double> maxsim_scores(const RerankQueryWords& q,
                                                std::span<const Hit> hits,
                                                const WordVectors* vectors);

}  // namespace scout::detail
