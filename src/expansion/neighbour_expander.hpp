// neighbour_expander.hpp: query expansion by word-vector neighbours restricted to the catalog's
// own words. Built once per snapshot; a query word (known to the catalog or not) adds its
// nearest catalog words to the BM25 query, so "kubernetes" can reach a tool that says "cluster".
#pragma once

#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "dense/dense_index.hpp"
#include "scout/embedder.hpp"
#include "scout/options.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::detail {

/// One catalog word: its surface form (what the word vectors know) and the BM25 terms the
/// index analyzer makes of it (e.g. "files" and "~file").
struct CatalogWord {
    std::string surface;
    std::vector<std::string> terms;
};

/// Immutable after build(); expand() is thread-safe.
class NeighbourExpander {
public:
    /// Keeps the catalog words the model knows (as unit vectors). Null when it knows none.
    [[nodiscard]] static std::shared_ptr<const NeighbourExpander> build(std::shared_ptr<const WordVectors> vectors,
                                                                        std::vector<CatalogWord> words);

    /// For each distinct word of `query_words` (unstemmed), appends the terms of up to
    /// options.neighbours nearest catalog words with cosine >= options.neighbour_min_similarity,
    /// weighted options.neighbour_weight x cosine. A neighbour is skipped when one of its terms
    /// is in `present` (the query's own terms, then every term added so far).
    void expand(std::span<const std::string> query_words, const ExpansionOptions& options,
                std::unordered_set<std::string>& present, std::vector<QueryTerm>& out) const;

    [[nodiscard]] std::size_t size() const noexcept { return words_.size(); }

private:
    std::shared_ptr<const WordVectors> vectors_;
    VectorStore matrix_;  // one unit row per entry of words_
    std::vector<CatalogWord> words_;
};

}  // namespace scout::detail
