// word_neighbours.cpp: see word_neighbours.hpp.
#include "dense/word_neighbours.hpp"

namespace scout::detail {

std::shared_ptr<const WordNeighbours> WordNeighbours::build(
    std::shared_ptr<const WordVectors> vectors, std::vector<CatalogWord> words) {
    if (!vectors || vectors->dim() == 0) {
        return nullptr;
    }
    auto out = std::make_shared<WordNeighbours>();
    const std::size_t dim = vectors->dim();
    PodVector<float> rows;
    std::vector<float> v(dim);
    for (CatalogWord& w : words) {
        if (w.terms.empty() || !vectors->lookup(w.surface, v.data()) || !normalize(v.data(), dim)) {
            continue;
        }
        rows.insert(rows.end(), v.begin(), v.end());
        out->words_.push_back(std::move(w));
    }
    if (out->words_.empty()) {
        return nullptr;
    }
    out->matrix_ = VectorStore(dim, std::move(rows));
    out->vectors_ = std::move(vectors);
    return out;
}

bool WordNeighbours::lookup(std::string_view word, float* out) const {
    return vectors_->lookup(word, out) && normalize(out, matrix_.dim());
}

void WordNeighbours::nearest(const float* query, std::size_t k, std::vector<ScoredDoc>& out) const {
    exact_search(matrix_, query, k, nullptr, out);
}

}  // namespace scout::detail
