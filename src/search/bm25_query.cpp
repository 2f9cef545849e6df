// bm25_query.cpp: see bm25_query.hpp.
#include "search/bm25_query.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"
#include "analysis/term.hpp"
#include "analysis/tool_action.hpp"
#include "analysis/word_pairs.hpp"
#include "search/compound_expander.hpp"
#include "search/lexicon.hpp"
#include "search/neighbour_expansion.hpp"

namespace scout::detail {

namespace {

/// Appends the analyzed terms of `text`, each with `weight`.
void add_terms(const Analyzer& analyzer,
               std::string_view text,
               float weight,
               std::vector<QueryTerm>& out) {
    std::vector<std::string> words;
    analyzer.analyze(text, words);
    for (std::string& w : words) {
        out.push_back({std::move(w), weight});
    }
}

/// The query's own terms from its surface words, sparing a second tokenization: the analyzer
/// is the surface analyzer with stemming as its last step, so its terms are, word by word, the
/// word and its stem term (surface forms kept), the stem alone, or the word (no stemming).
void query_terms_of_surface(const AnalyzerOptions& analyzer,
                            const std::vector<std::string>& surface,
                            std::vector<QueryTerm>& out) {
    for (const std::string& w : surface) {
        if (!analyzer.stem) {
            out.push_back({w, 1.0f});
        } else if (!analyzer.keep_surface) {
            out.push_back({memo_porter_stem(w), 1.0f});
        } else {
            out.push_back({w, 1.0f});
            out.push_back({make_term(TermKind::stem, memo_porter_stem(w)), 1.0f});
        }
    }
}

/// The lexicon's phrases for the query, from its plain words when they are at hand: they are
/// the words split_words gives, except that plain_words cuts a word over 64 bytes (to 61-64
/// bytes, at a UTF-8 boundary), so a query with a word that long is split again.
std::vector<std::string> lexicon_expansions(std::string_view query,
                                            const std::vector<std::string>* plain) {
    constexpr std::size_t kShortestCut = 61;
    if (plain != nullptr && std::all_of(plain->begin(), plain->end(), [](const std::string& w) {
            return w.size() < kShortestCut;
        })) {
        return default_lexicon().expansions_of_words(*plain);
    }
    return default_lexicon().expansions(query);
}

/// Whether the catalog knows `word` (lowercase, unstemmed): all its terms are in the index.
bool known_word(const Snapshot& snap, const std::string& word) {
    // When the index keeps surface forms, the word is known iff it is a term itself, which
    // spares analyzing every candidate half of a compound.
    if (!snap.options.analyzer.stem || snap.options.analyzer.keep_surface) {
        return snap.bm25.doc_freq(word) > 0;
    }
    // A word of lowercase ASCII letters is one token to the analyzer, so its one term is its
    // stem (or none for a stop word): no tokenizing, no vector, for every candidate half.
    const AnalyzerOptions& a = snap.options.analyzer;
    if (!word.empty() && word.size() <= a.max_token_bytes &&
        std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
        return !(a.remove_stop_words && is_stop_word(word)) &&
               snap.bm25.doc_freq(memo_porter_stem(word)) > 0;
    }
    const std::vector<std::string> terms = snap.analyzer.analyze(word);
    return !terms.empty() && std::all_of(terms.begin(), terms.end(), [&](const std::string& t) {
        return snap.bm25.doc_freq(t) > 0;
    });
}

bool wants_action(const Snapshot& snap) {
    const ExpansionOptions& expansion = snap.options.expansion;
    const bool term = expansion.action_weight > 0.0f && snap.options.bm25.weights.action > 0.0f;
    return term || expansion.action_boost > 0.0f;
}

bool wants_pairs(const Snapshot& snap) {
    return snap.options.expansion.pair_weight > 0.0f && snap.options.bm25.weights.word_pairs > 0.0f;
}

bool wants_lexicon(const Snapshot& snap) {
    return snap.options.expansion.lexicon && snap.options.expansion.weight > 0.0f;
}

}  // namespace

std::vector<QueryTerm> bm25_query(const Snapshot& snap,
                                  std::string_view query,
                                  ToolAction action,
                                  const std::vector<std::string>* plain) {
    const ExpansionOptions& expansion = snap.options.expansion;
    std::vector<QueryTerm> terms;
    // Unstemmed query words, for compounds and neighbours.
    std::vector<std::string> surface;
    if (expansion.compound_weight > 0.0f || (snap.neighbours && expansion.neighbours > 0)) {
        snap.surface_analyzer.analyze(query, surface);
        query_terms_of_surface(snap.options.analyzer, surface, terms);
    } else {
        add_terms(snap.analyzer, query, 1.0f, terms);
    }
    if (wants_lexicon(snap)) {
        for (const std::string& phrase : lexicon_expansions(query, plain)) {
            add_terms(snap.analyzer, phrase, expansion.weight, terms);
        }
    }
    if (wants_pairs(snap)) {
        std::vector<std::string> pairs;
        if (plain != nullptr) {
            append_word_pairs_of(*plain, pairs);
        } else {
            append_word_pairs(query, pairs);
        }
        for (std::string& pair : pairs) {
            terms.push_back({std::move(pair), expansion.pair_weight});
        }
    }
    if (expansion.compound_weight > 0.0f) {
        const auto known = [&](const std::string& word) { return known_word(snap, word); };
        for (const std::string& phrase : compound_expansions(surface, known)) {
            add_terms(snap.analyzer, phrase, expansion.compound_weight, terms);
        }
    }
    if (expansion.action_weight > 0.0f && snap.options.bm25.weights.action > 0.0f) {
        if (std::string term = action_term(action); !term.empty()) {
            terms.push_back({std::move(term), expansion.action_weight});
        }
    }
    if (snap.neighbours && expansion.neighbours > 0) {
        std::unordered_set<std::string> present;
        for (const QueryTerm& t : terms) {
            present.insert(t.term);
        }
        expand_neighbours(*snap.neighbours, surface, expansion, present, terms);
    }
    return terms;
}

void boost_action(const Snapshot& snap, ToolAction action, std::vector<ScoredDoc>& docs) {
    const float boost = snap.options.expansion.action_boost;
    if (!(boost > 0.0f) || action == ToolAction::none || docs.size() < 2) {
        return;
    }
    bool changed = false;
    for (ScoredDoc& d : docs) {
        if (snap.tools[d.id].action == action) {
            d.score *= 1.0f + boost;
            changed = true;
        }
    }
    if (changed) {
        std::stable_sort(docs.begin(), docs.end(), [](const ScoredDoc& x, const ScoredDoc& y) {
            return x.score > y.score;
        });
    }
}

void run_bm25_branch(const Snapshot& snap,
                     std::string_view query,
                     std::size_t fetch,
                     const Bitset* filter,
                     std::vector<ScoredDoc>& out) {
    // The action, the word pairs and the lexicon read the same plain words: tokenize the query
    // once for all three.
    std::vector<std::string> plain;
    const bool has_plain = wants_action(snap) || wants_pairs(snap) || wants_lexicon(snap);
    if (has_plain) {
        plain = plain_words(query);
    }
    const ToolAction action = wants_action(snap) ? action_of_words(plain) : ToolAction::none;
    const std::vector<QueryTerm> terms =
        bm25_query(snap, query, action, has_plain ? &plain : nullptr);
    snap.bm25.search(std::span<const QueryTerm>(terms), fetch, filter, out);
    boost_action(snap, action, out);
}

}  // namespace scout::detail
