// bm25_query.hpp: a query as weighted BM25 terms (its words, lexicon synonyms, word pairs,
// compound words, its action, word-vector neighbours), and the action boost of the results.
#pragma once

#include <string_view>
#include <vector>

#include "snapshot/snapshot.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::detail {

/// The query's own terms (weight 1) plus every expansion the snapshot's options turn on.
[[nodiscard]] std::vector<QueryTerm> bm25_query(const Snapshot& snap, std::string_view query);

/// Multiplies the scores of the tools whose action is the query's by 1 + action_boost and
/// re-sorts (stably, so ties keep the index's order).
void boost_action(const Snapshot& snap, std::string_view query, std::vector<ScoredDoc>& docs);

}  // namespace scout::detail
