// word_neighbours.hpp: the catalog's own words as unit word vectors, built once per snapshot,
// so a query word (known to the catalog or not) can find its nearest catalog words
// ("kubernetes" -> "cluster"). search/neighbour_expansion.cpp turns them into query terms.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"

#include "dense/dense_index.hpp"

namespace scout::detail {

/// One catalog word: its surface form (what the word vectors know) and the BM25 terms the
/// index analyzer makes of it (e.g. "files" and "~file").
struct CatalogWord {
    std::string surface;
    std::vector<std::string> terms;
};

/// Immutable after build(); every method is const and thread-safe.
class WordNeighbours {
public:
    /// Keeps the catalog words the model knows (as unit vectors). Null when it knows none.
    [[nodiscard]] static std::shared_ptr<const WordNeighbours> build(
        std::shared_ptr<const WordVectors> vectors, std::vector<CatalogWord> words);

    /// Writes the unit vector of `word` into `out` (dim() floats); false when the model has no
    /// usable vector for it.
    [[nodiscard]] bool lookup(std::string_view word, float* out) const;
    /// The `k` catalog words nearest to the unit vector `query`, best first (id = word index).
    void nearest(const float* query, std::size_t k, std::vector<ScoredDoc>& out) const;

    [[nodiscard]] const CatalogWord& word(std::size_t i) const noexcept { return words_[i]; }
    [[nodiscard]] std::size_t size() const noexcept { return words_.size(); }
    [[nodiscard]] std::size_t dim() const noexcept { return matrix_.dim(); }

private:
    std::shared_ptr<const WordVectors> vectors_;
    VectorStore matrix_;  // one unit row per entry of words_
    std::vector<CatalogWord> words_;
};

}  // namespace scout::detail
