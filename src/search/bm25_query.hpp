// bm25_query.hpp: the BM25 half of a search: the query as weighted terms (its words, lexicon
// synonyms, word pairs, compound words, its action, word-vector neighbours), the index search,
// and the action boost of the results.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/tool_action.hpp"
#include "snapshot/snapshot.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::detail {

/// The query's own terms (weight 1) plus lexicon expansions (weight options.weight), its word
/// pairs (pair_weight), compound words joined or split against the catalog's vocabulary
/// (compound_weight), its action term (action_weight) and word-vector neighbours from the
/// catalog's vocabulary (weight neighbour_weight x cosine).
[[nodiscard]] std::vector<QueryTerm> bm25_query(const Snapshot& snap,
                                                std::string_view query,
                                                ToolAction action);

/// The terms of bm25_query that the index knows, in order, looked up once each: what the
/// search reads. The query is cut into words once for every signal, and no term is copied.
void bm25_query_ids(const Snapshot& snap,
                    std::string_view query,
                    ToolAction action,
                    std::vector<WeightedTermId>& out);

/// Multiplies the scores of the tools with `action` by 1 + action_boost and re-sorts by score
/// (stably, so ties keep the index's order).
void boost_action(const Snapshot& snap, ToolAction action, std::vector<ScoredDoc>& docs);

/// The whole branch: the `fetch` best allowed tools for `query` (terms, search, action boost).
void run_bm25_branch(const Snapshot& snap,
                     std::string_view query,
                     std::size_t fetch,
                     const Bitset* filter,
                     std::vector<ScoredDoc>& out);

}  // namespace scout::detail
