// bm25_index.hpp: the sparse branch. An immutable inverted index in CSR layout (one arena of
// sorted docids and a parallel arena of precomputed BM25 impacts), searched term-at-a-time into
// a per-thread accumulator, then a SIMD threshold scan feeding a bounded heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scout/options.hpp"

#include "sparse/bm25_vocabulary.hpp"
#include "util/bitset.hpp"
#include "util/pod_vector.hpp"
#include "util/shared_array.hpp"
#include "util/topk.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {

/// One document as interned terms: its distinct terms with their weighted frequencies (each > 0)
/// and its length, the float sum of those frequencies in order (as Builder::add sums them).
struct Bm25DocumentTerms {
    std::span<const std::pair<TermId, float>> terms;
    float length = 0.0f;
};

/// An analyzed query term and how much its matches count (1 for the query's own words).
struct QueryTerm {
    std::string term;
    float weight = 1.0f;
};

/// A query term found in the vocabulary, by its id, with its weight.
struct WeightedTermId {
    TermId id = 0;
    float weight = 1.0f;
    friend bool operator==(const WeightedTermId&, const WeightedTermId&) = default;
};

class Bm25Index {
public:
    /// Collects weighted term occurrences document by document (ids 0, 1, 2, ... in call order).
    class Builder {
    public:
        /// Starts the next document.
        void begin_document();
        /// One occurrence of `term` in the current document, counted with `weight`
        /// (the field weight: BM25F-style weighted term frequency and length).
        void add(const std::string& term, float weight);
        [[nodiscard]] Bm25Index build(const Bm25Options& options) &&;

    private:
        Bm25Vocabulary vocabulary_;
        std::vector<std::vector<std::pair<ToolId, float>>>
            postings_;  // per term: (doc, weighted tf)
        std::vector<float> doc_length_;
    };

    /// The k best documents for the analyzed query terms (repeated terms count repeatedly),
    /// restricted to `allowed` when given. Only documents sharing a term score; scores > 0.
    void search(std::span<const std::string> terms,
                std::size_t k,
                const Bitset* allowed,
                std::vector<ScoredDoc>& out) const;
    /// Same with a weight per term: a term's impacts are multiplied by the sum of its weights.
    void search(std::span<const QueryTerm> terms,
                std::size_t k,
                const Bitset* allowed,
                std::vector<ScoredDoc>& out) const;
    /// Same with terms already looked up (term_id): equal to searching the terms they came from,
    /// the ones the vocabulary lacks left out.
    void search(std::span<const WeightedTermId> terms,
                std::size_t k,
                const Bitset* allowed,
                std::vector<ScoredDoc>& out) const;

    /// The id of `term`, or nullopt when no document of the index was built with it.
    [[nodiscard]] std::optional<TermId> term_id(std::string_view term) const {
        return vocabulary_->find(term);
    }
    /// The same for a term whose word_hash is at hand.
    [[nodiscard]] std::optional<TermId> term_id(const PrehashedTerm& term) const {
        return vocabulary_->find(term);
    }
    /// Document frequency of the term `id` (term_id's answer).
    [[nodiscard]] std::size_t doc_freq(TermId id) const noexcept {
        return offsets_[id + 1] - offsets_[id];
    }

    /// The index of `documents` (ids 0, 1, 2, ... in order) over terms interned in `vocabulary`
    /// (every TermId used must be in it; terms no document uses get empty postings). Equal, term
    /// by term, to what a Builder fed the same occurrences builds, without hashing any term.
    [[nodiscard]] static Bm25Index from_documents(std::shared_ptr<const Bm25Vocabulary> vocabulary,
                                                  std::span<const Bm25DocumentTerms> documents,
                                                  const Bm25Options& options);

    /// The index of `documents` when only the documents `changed` (ids in increasing order)
    /// differ from those `previous` was built from, and every other document keeps its ids,
    /// terms and weights; `previous_terms[i]` are the terms `changed[i]` had in `previous`. The
    /// postings of terms no changed document had or has are copied whole; in the others the
    /// changed documents' old postings are dropped and their new ones merged in. Equal, array
    /// for array, to from_documents over the same documents (impacts are recomputed in full: N
    /// and the average length change with any edit). Null when `previous` keeps no weighted tfs
    /// (an index read from a file) or was built over a different number of documents or a
    /// larger vocabulary, or the spans' sizes differ.
    [[nodiscard]] static std::unique_ptr<Bm25Index> patched(
        const Bm25Index& previous,
        std::shared_ptr<const Bm25Vocabulary> vocabulary,
        std::span<const Bm25DocumentTerms> documents,
        std::span<const ToolId> changed,
        std::span<const Bm25DocumentTerms> previous_terms,
        const Bm25Options& options);

    /// An index from its stored arrays (an index file's, owned or viewed in place), after
    /// checking every invariant a search relies on: offsets from 0, non-decreasing, ending at the
    /// postings; docids below num_docs and increasing within a term; finite impacts; unique
    /// terms. Null if any fails.
    [[nodiscard]] static std::unique_ptr<Bm25Index> from_parts(
        std::size_t num_docs,
        std::span<const std::string_view> terms,
        SharedArray<std::uint32_t> offsets,
        SharedArray<ToolId> docids,
        SharedArray<float> impacts);
    /// The terms by TermId, and the arrays, for the index file.
    [[nodiscard]] std::vector<std::string_view> terms() const;
    [[nodiscard]] std::span<const std::uint32_t> offsets() const noexcept {
        return offsets_.span();
    }
    [[nodiscard]] std::span<const ToolId> docids() const noexcept { return docids_.span(); }
    [[nodiscard]] std::span<const float> impacts() const noexcept { return impacts_.span(); }
    /// The weighted tf of each posting and each document's length, which patched() needs; both
    /// empty in an index read from a file that did not store them.
    [[nodiscard]] std::span<const float> tfs() const noexcept { return tfs_.span(); }
    [[nodiscard]] std::span<const float> lengths() const noexcept { return lengths_.span(); }
    [[nodiscard]] bool has_weights() const noexcept {
        return tfs_.size() == docids_.size() && lengths_.size() == num_docs_;
    }
    /// Gives an index read from a file the weighted tfs and lengths it was built from (an
    /// index file's BMTF section), so a later build can patch it. Checked against the stored
    /// postings: one tf per posting and one length per document, all finite, tfs positive,
    /// each length the sum of its document's tfs, and the impacts they give equal to the stored
    /// ones (to float rounding). Empty when adopted; otherwise why not, changing nothing.
    [[nodiscard]] std::string adopt_weights(SharedArray<float> tfs,
                                            SharedArray<float> lengths,
                                            const Bm25Options& options);
    /// The term ids this index was built over (shared with the build's document cache).
    [[nodiscard]] const std::shared_ptr<const Bm25Vocabulary>& vocabulary() const noexcept {
        return vocabulary_;
    }

    [[nodiscard]] std::size_t num_docs() const noexcept { return num_docs_; }
    [[nodiscard]] std::size_t num_terms() const noexcept {
        return offsets_.empty() ? 0 : offsets_.size() - 1;
    }
    [[nodiscard]] std::size_t num_postings() const noexcept { return docids_.size(); }
    /// Bytes held by postings and dictionary (approximate for the hash map).
    [[nodiscard]] std::size_t memory_bytes() const noexcept;
    /// Document frequency of a term (0 if unknown); for tests and explanations.
    [[nodiscard]] std::size_t doc_freq(const std::string& term) const;

private:
    /// Each document's length normalization, k1 * (1 - b + b * dl / avgdl), computed once
    /// for all its postings.
    [[nodiscard]] static std::vector<double> length_norms(const std::vector<float>& doc_length,
                                                          const Bm25Options& options);
    /// One posting's impact from its term's idf, its weighted tf and its document's norm.
    [[nodiscard]] static float impact(double idf, float tf, double k1, double norm) noexcept {
        const auto f = static_cast<double>(tf);
        return static_cast<float>(idf * f * (k1 + 1.0) / (f + norm));
    }
    /// impacts_ of term t's postings from their docids_ and tfs_ (impacts_ already sized).
    void term_impacts(std::size_t t, const std::vector<double>& norm, const Bm25Options& options);
    /// impacts_ from docids_, tfs_ and the documents' lengths.
    void compute_impacts(const std::vector<float>& doc_length, const Bm25Options& options);

    /// The search itself, over plain terms (weight 1) or weighted ones; bm25_search.cpp.
    template <class Term>
    void search_terms(std::span<const Term> terms,
                      std::size_t k,
                      const Bitset* allowed,
                      std::vector<ScoredDoc>& out) const;

    std::shared_ptr<const Bm25Vocabulary> vocabulary_ = empty_vocabulary();
    // Built, or an index file's viewed in place.
    SharedArray<std::uint32_t> offsets_;  // term t's postings are [offsets_[t], offsets_[t + 1])
    SharedArray<ToolId> docids_;
    SharedArray<float> impacts_;
    /// The weighted tf of each posting, which patched() recomputes impacts from: built, or an
    /// index file's (its BMTF section) viewed in place; empty in an index read from a file
    /// without them (its next commit lays out the postings in full).
    SharedArray<float> tfs_;
    /// Each document's length (the sum of its weighted tfs, in its terms' order); empty with
    /// tfs_.
    SharedArray<float> lengths_;
    std::size_t num_docs_ = 0;

    [[nodiscard]] static std::shared_ptr<const Bm25Vocabulary> empty_vocabulary();
};

}  // namespace scout::detail
