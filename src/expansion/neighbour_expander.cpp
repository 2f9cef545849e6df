// neighbour_expander.cpp: catalog-word vector table and the per-query nearest-word scan.
#include "expansion/neighbour_expander.hpp"

#include <algorithm>
#include <cmath>

namespace scout::detail {

std::shared_ptr<const NeighbourExpander> NeighbourExpander::build(std::shared_ptr<const WordVectors> vectors,
                                                                  std::vector<CatalogWord> words) {
    if (!vectors || vectors->dim() == 0) {
        return nullptr;
    }
    auto out = std::make_shared<NeighbourExpander>();
    const std::size_t dim = vectors->dim();
    out->matrix_.dim = dim;
    std::vector<float> v(dim);
    for (CatalogWord& w : words) {
        if (w.terms.empty() || !vectors->lookup(w.surface, v.data()) || !normalize(v.data(), dim)) {
            continue;
        }
        out->matrix_.data.insert(out->matrix_.data.end(), v.begin(), v.end());
        out->words_.push_back(std::move(w));
    }
    if (out->words_.empty()) {
        return nullptr;
    }
    out->vectors_ = std::move(vectors);
    return out;
}

void NeighbourExpander::expand(std::span<const std::string> query_words, const ExpansionOptions& options,
                               std::unordered_set<std::string>& present, std::vector<QueryTerm>& out) const {
    if (options.neighbours == 0 || !(options.neighbour_weight > 0.0f)) {
        return;
    }
    const std::size_t dim = matrix_.dim;
    std::vector<float> q(dim);
    std::vector<ScoredDoc> near;
    std::unordered_set<std::string> seen;
    // A few spare candidates: the word itself and its inflections are usually nearest and skipped.
    const std::size_t fetch = std::min(options.neighbours * 3 + 2, words_.size());
    for (const std::string& word : query_words) {
        if (!seen.insert(word).second || !vectors_->lookup(word, q.data()) || !normalize(q.data(), dim)) {
            continue;
        }
        exact_search(matrix_, q.data(), fetch, nullptr, near);
        std::size_t taken = 0;
        for (const ScoredDoc& d : near) {
            if (taken == options.neighbours || !(d.score >= options.neighbour_min_similarity)) {
                break;
            }
            const CatalogWord& w = words_[d.id];
            if (std::any_of(w.terms.begin(), w.terms.end(), [&](const std::string& t) { return present.count(t) != 0; })) {
                continue;
            }
            for (const std::string& t : w.terms) {
                out.push_back({t, options.neighbour_weight * d.score});
                present.insert(t);
            }
            ++taken;
        }
    }
}

}  // namespace scout::detail
