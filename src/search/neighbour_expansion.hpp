// neighbour_expansion.hpp: query expansion by word-vector neighbours restricted to the catalog's
// own words (the snapshot's WordNeighbours): each query word adds its nearest catalog words to
// the BM25 query, weighted by cosine.
#pragma once

#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "scout/options.hpp"

#include "dense/word_neighbours.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::detail {

/// For each distinct word of `query_words` (unstemmed), appends the terms of up to
/// options.neighbours nearest catalog words with cosine >= options.neighbour_min_similarity,
/// weighted options.neighbour_weight x cosine. A neighbour is skipped when one of its terms is in
/// `present` (the query's own terms, then every term added so far).
void expand_neighbours(const WordNeighbours& neighbours,
                       std::span<const std::string> query_words,
                       const ExpansionOptions& options,
                       std::unordered_set<std::string>& present,
                       std::vector<QueryTerm>& out);

}  // namespace scout::detail
