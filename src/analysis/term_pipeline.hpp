// term_pipeline.hpp: the one term pipeline of documents and queries. A text is tokenized
// (Analyzer::raw_tokens, or the analyzer's own pass), each token normalised (kept_word: cut to
// max_token_bytes, stop words dropped), stemmed (memo_stem) and made into typed terms
// (term.hpp), which are handed to a sink. Documents (Analyzer::analyze, append_word_pairs,
// snapshot/document_cache.cpp) and queries (search/bm25_query.cpp) only feed it their words, so
// a signal both sides share is written once, here and in term.hpp, and the sides cannot disagree.
//
// A sink has two members: add(std::string_view term, float weight) and
// add(std::string_view term, std::uint64_t hash, float weight), the second for a term whose
// word_hash is known already (the memo keeps them), so a lookup need not hash it again. Views
// handed to a sink are valid only during the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scout/options.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"
#include "analysis/term.hpp"

namespace scout::detail {

/// Plain words (the words pairs, actions and the lexicon read) are cut at this many bytes.
inline constexpr std::size_t kPlainWordBytes = 64;

/// The part of a lowercase raw token that the analyzer keeps as a word: its first
/// max_token_bytes (at a UTF-8 boundary), or nothing when that is empty or a dropped stop word.
[[nodiscard]] inline std::string_view kept_word(const AnalyzerOptions& a,
                                                std::string_view token) noexcept {
    const std::string_view word = token.substr(0, Analyzer::kept_bytes(token, a.max_token_bytes));
    if (word.empty() || (a.remove_stop_words && is_stop_word(word))) {
        return {};
    }
    return word;
}

/// The analyzer's terms of one kept word with `weight`: the word (no stemming), its stem, or
/// both, the stem as a stem term (keep_surface). `stem` is memo_stem(word), or anything when the
/// analyzer does not stem; its hashes go with the terms. Nothing for an empty word.
template <class Sink>
void emit_word_terms(const AnalyzerOptions& a,
                     std::string_view word,
                     const MemoStem& stem,
                     float weight,
                     Sink& sink) {
    if (word.empty()) {
        return;
    }
    if (!a.stem) {
        sink.add(word, weight);
    } else if (!a.keep_surface) {
        sink.add(stem.stem, stem.stem_hash, weight);
    } else {
        sink.add(word, stem.word_hash, weight);
        sink.add(stem.stem_term, stem.stem_term_hash, weight);
    }
}

/// The same, stemming the word itself.
template <class Sink>
void emit_word_terms(const AnalyzerOptions& a, std::string_view word, float weight, Sink& sink) {
    if (!word.empty()) {
        emit_word_terms(a, word, a.stem ? memo_stem(word) : MemoStem{}, weight, sink);
    }
}

/// The word-pair terms of a run of plain words, fed in order: each pair of neighbouring words,
/// stop words left out, as "<first stem> <second stem>" pair terms ("Convert speech to text" ->
/// "convert speech", "speech text").
class PairTerms {
public:
    /// Starts a new run: the next word pairs with nothing before it.
    void restart() { previous_.clear(); }

    /// The next plain word of the run, with its stem, and the term it closes, if any.
    template <class Sink>
    void add(std::string_view plain_word, std::string_view stem, float weight, Sink& sink) {
        if (plain_word.empty() || is_stop_word(plain_word)) {
            return;
        }
        if (!previous_.empty()) {
            term_.clear();  // clear + append: GCC 12 warns (-Wrestrict) falsely on assign here
            term_.append(term_prefix::kPair).append(previous_).append(" ").append(stem);
            sink.add(std::string_view(term_), weight);
        }
        previous_.assign(stem);
    }

    /// The same, stemming the word itself.
    template <class Sink>
    void add(std::string_view plain_word, float weight, Sink& sink) {
        if (!plain_word.empty() && !is_stop_word(plain_word)) {
            add(plain_word, memo_stem(plain_word).stem, weight, sink);
        }
    }

private:
    std::string previous_;
    std::string term_;
};

/// The weight each signal that reads a run of plain words gives its terms on one side (zero: the
/// signal is off on that side).
struct PlainWordWeights {
    float pairs = 0.0f;  ///< word pairs (PairTerms)

    [[nodiscard]] bool any() const noexcept { return pairs > 0.0f; }
};

/// A document's weights: FieldWeights.
[[nodiscard]] inline PlainWordWeights document_plain_word_weights(const FieldWeights& w) noexcept {
    return {.pairs = w.word_pairs > 0.0f ? w.word_pairs : 0.0f};
}

/// A query's weights: its expansion weights, for the signals the documents index.
[[nodiscard]] inline PlainWordWeights query_plain_word_weights(const CatalogOptions& o) noexcept {
    const bool pairs = o.expansion.pair_weight > 0.0f && o.bm25.weights.word_pairs > 0.0f;
    return {.pairs = pairs ? o.expansion.pair_weight : 0.0f};
}

/// The terms of every signal that reads a run of plain words (plain_words: split, lowercase, cut
/// at kPlainWordBytes, stop words kept, unstemmed), documents' name and description and queries
/// alike: today the word pairs.
class PlainWordTerms {
public:
    explicit PlainWordTerms(PlainWordWeights weights = {}) : weights_(weights) {}

    /// Starts a new run with `weights`: no term spans two runs.
    void restart(PlainWordWeights weights) {
        weights_ = weights;
        pairs_.restart();
    }

    [[nodiscard]] const PlainWordWeights& weights() const noexcept { return weights_; }

    /// The next plain word of the run with its stem (memo_stem(word).stem).
    template <class Sink>
    void add(std::string_view word, std::string_view stem, Sink& sink) {
        if (weights_.pairs > 0.0f) {
            pairs_.add(word, stem, weights_.pairs, sink);
        }
    }

    /// The same, stemming the word itself.
    template <class Sink>
    void add(std::string_view word, Sink& sink) {
        if (weights_.pairs > 0.0f) {
            pairs_.add(word, weights_.pairs, sink);
        }
    }

private:
    PlainWordWeights weights_;
    PairTerms pairs_;
};

/// A term sink that keeps each term's text (weights and hashes dropped): the analyzer's and the
/// word pairs' string forms.
struct StringTermSink {
    std::vector<std::string>& out;
    void add(std::string_view term, float /*weight*/) { out.emplace_back(term); }
    void add(std::string_view term, std::uint64_t /*hash*/, float weight) { add(term, weight); }
};

}  // namespace scout::detail
