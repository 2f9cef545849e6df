// neighbour_expansion.cpp: see neighbour_expansion.hpp.
#include "search/neighbour_expansion.hpp"

#include <algorithm>

namespace scout::detail {

void expand_neighbours(const WordNeighbours& neighbours,
                       std::span<const std::string> query_words,
                       const ExpansionOptions& options,
                       std::unordered_set<std::string>& present,
                       std::vector<QueryTerm>& out) {
    if (options.neighbours == 0 || !(options.neighbour_weight > 0.0f)) {
        return;
    }
    std::vector<float> q(neighbours.dim());
    std::vector<ScoredDoc> near;
    std::unordered_set<std::string> seen;
    // A few spare candidates: the word itself and its inflections are usually nearest and skipped.
    const std::size_t fetch = std::min(options.neighbours * 3 + 2, neighbours.size());
    for (const std::string& word : query_words) {
        if (!seen.insert(word).second || !neighbours.lookup(word, q.data())) {
            continue;
        }
        neighbours.nearest(q.data(), fetch, near);
        std::size_t taken = 0;
        for (const ScoredDoc& d : near) {
            if (taken == options.neighbours || !(d.score >= options.neighbour_min_similarity)) {
                break;
            }
            const CatalogWord& w = neighbours.word(d.id);
            if (std::any_of(w.terms.begin(), w.terms.end(), [&](const std::string& t) {
                    return present.count(t) != 0;
                })) {
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
