// bm25_query.cpp: see bm25_query.hpp.
#include "catalog/bm25_query.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "analysis/lexicon.hpp"
#include "analysis/tool_action.hpp"
#include "analysis/word_pairs.hpp"
#include "expansion/compound_expander.hpp"

namespace scout::detail {

/// The query's own terms (weight 1) plus lexicon expansions (weight options.weight), its word
/// pairs (pair_weight), compound words joined or split against the catalog's vocabulary
/// (compound_weight), the query's action term (action_weight) and word-vector neighbours from
/// the catalog's vocabulary (weight neighbour_weight x cosine).
std::vector<QueryTerm> bm25_query(const Snapshot& snap, std::string_view query) {
    std::vector<std::string> words;
    snap.analyzer.analyze(query, words);
    std::vector<QueryTerm> terms;
    for (std::string& w : words) {
        terms.push_back({std::move(w), 1.0f});
    }
    const ExpansionOptions& expansion = snap.options.expansion;
    if (expansion.lexicon && expansion.weight > 0.0f) {
        for (const std::string& phrase : default_lexicon().expansions(query)) {
            words.clear();
            snap.analyzer.analyze(phrase, words);
            for (std::string& w : words) {
                terms.push_back({std::move(w), expansion.weight});
            }
        }
    }
    if (expansion.pair_weight > 0.0f && snap.options.bm25.weights.word_pairs > 0.0f) {
        words.clear();
        append_word_pairs(query, words);
        for (std::string& pair : words) {
            terms.push_back({std::move(pair), expansion.pair_weight});
        }
    }
    if (expansion.compound_weight > 0.0f) {
        words.clear();
        snap.surface_analyzer.analyze(query, words);
        std::vector<std::string> terms_of;
        // When the index keeps surface forms, a lowercase word is known iff it is a term itself,
        // which spares analyzing every candidate half.
        const bool surface_terms = !snap.options.analyzer.stem || snap.options.analyzer.keep_surface;
        const auto known = [&](const std::string& word) {
            if (surface_terms) {
                return snap.bm25.doc_freq(word) > 0;
            }
            terms_of.clear();
            snap.analyzer.analyze(word, terms_of);
            return !terms_of.empty() && std::all_of(terms_of.begin(), terms_of.end(),
                                                    [&](const std::string& t) { return snap.bm25.doc_freq(t) > 0; });
        };
        for (const std::string& phrase : compound_expansions(words, known)) {
            terms_of.clear();
            snap.analyzer.analyze(phrase, terms_of);
            for (std::string& t : terms_of) {
                terms.push_back({std::move(t), expansion.compound_weight});
            }
        }
    }
    if (expansion.action_weight > 0.0f && snap.options.bm25.weights.action > 0.0f) {
        if (std::string term = action_term(action_of_query(query)); !term.empty()) {
            terms.push_back({std::move(term), expansion.action_weight});
        }
    }
    if (snap.neighbours && expansion.neighbours > 0) {
        std::unordered_set<std::string> present;
        for (const QueryTerm& t : terms) {
            present.insert(t.term);
        }
        words.clear();
        snap.surface_analyzer.analyze(query, words);
        snap.neighbours->expand(words, expansion, present, terms);
    }
    return terms;
}

/// Multiplies the scores of the tools whose action is the query's by 1 + action_boost and
/// re-sorts (stably, so ties keep the index's order).
void boost_action(const Snapshot& snap, std::string_view query, std::vector<ScoredDoc>& docs) {
    const float boost = snap.options.expansion.action_boost;
    if (!(boost > 0.0f) || docs.size() < 2) {
        return;
    }
    const ToolAction wanted = action_of_query(query);
    if (wanted == ToolAction::none) {
        return;
    }
    bool changed = false;
    for (ScoredDoc& d : docs) {
        if (snap.tools[d.id].action == wanted) {
            d.score *= 1.0f + boost;
            changed = true;
        }
    }
    if (changed) {
        std::stable_sort(docs.begin(), docs.end(), [](const ScoredDoc& x, const ScoredDoc& y) { return x.score > y.score; });
    }
}

}  // namespace scout::detail
