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
/// `plain`, when given, is the query's plain_words (word_pairs.hpp), which the pairs and the
/// lexicon then read instead of tokenizing the query again.
[[nodiscard]] std::vector<QueryTerm> bm25_query(const Snapshot& snap,
                                                std::string_view query,
                                                ToolAction action,
                                                const std::vector<std::string>* plain = nullptr);

/// Multiplies the scores of the tools with `action` by 1 + action_boost and re-sorts (stably,
/// so ties keep the index's order).
void boost_action(const Snapshot& snap, ToolAction action, std::vector<ScoredDoc>& docs);

/// The whole branch: the `fetch` best allowed tools for `query` (terms, search, action boost).
void run_bm25_branch(const Snapshot& snap,
                     std::string_view query,
                     std::size_t fetch,
                     const Bitset* filter,
                     std::vector<ScoredDoc>& out);

}  // namespace scout::detail
