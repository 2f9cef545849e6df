// bm25_index.cpp: BM25 with Lucene's non-negative idf, ln(1 + (N - df + 0.5) / (df + 0.5)),
// and the classic saturation tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
// (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009).
#include "sparse/bm25_index.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace scout::detail {

void Bm25Index::Builder::begin_document() {
    doc_length_.push_back(0.0f);
}

void Bm25Index::Builder::add(const std::string& term, float weight) {
    if (doc_length_.empty() || weight <= 0.0f) {
        return;
    }
    const auto doc = static_cast<ToolId>(doc_length_.size() - 1);
    const TermId id = vocabulary_.intern(term, static_cast<std::size_t>(word_hash(term)));
    if (id == postings_.size()) {
        postings_.emplace_back();
    }
    auto& list = postings_[id];
    if (!list.empty() && list.back().first == doc) {
        list.back().second += weight;
    } else {
        list.emplace_back(doc, weight);
    }
    doc_length_.back() += weight;
}

Bm25Index Bm25Index::Builder::build(const Bm25Options& options) && {
    Bm25Index index;
    index.num_docs_ = doc_length_.size();
    std::size_t total_postings = 0;
    for (const auto& list : postings_) {
        total_postings += list.size();
    }
    PodVector<std::uint32_t>& offsets = index.offsets_.owned();
    PodVector<ToolId>& docids = index.docids_.owned();
    offsets.reserve(postings_.size() + 1);
    docids.reserve(total_postings);
    PodVector<float>& tfs = index.tfs_.owned();
    tfs.reserve(total_postings);
    offsets.push_back(0);
    for (const auto& list : postings_) {
        for (const auto& [doc, weighted_tf] : list) {
            docids.push_back(doc);
            tfs.push_back(weighted_tf);
        }
        offsets.push_back(static_cast<std::uint32_t>(docids.size()));
    }
    index.compute_impacts(doc_length_, options);
    index.lengths_.owned().assign(doc_length_.begin(), doc_length_.end());
    index.vocabulary_ = std::make_shared<const Bm25Vocabulary>(std::move(vocabulary_));
    return index;
}

Bm25Index Bm25Index::from_documents(std::shared_ptr<const Bm25Vocabulary> vocabulary,
                                    std::span<const Bm25DocumentTerms> documents,
                                    const Bm25Options& options) {
    Bm25Index index;
    index.num_docs_ = documents.size();
    // Counting sort by term: postings come out in docid order within each term.
    PodVector<std::uint32_t>& offsets = index.offsets_.owned();
    offsets.assign(vocabulary->size() + 1, 0);
    std::vector<float> doc_length;
    doc_length.reserve(documents.size());
    for (const Bm25DocumentTerms& doc : documents) {
        for (const auto& [term, tf] : doc.terms) {
            ++offsets[term + 1];
        }
        doc_length.push_back(doc.length);
    }
    for (std::size_t t = 1; t < offsets.size(); ++t) {
        offsets[t] += offsets[t - 1];
    }
    PodVector<ToolId>& docids = index.docids_.owned();
    docids.resize(offsets.back());
    PodVector<float>& tfs = index.tfs_.owned();
    tfs.resize(offsets.back());
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t d = 0; d < documents.size(); ++d) {
        for (const auto& [term, tf] : documents[d].terms) {
            const std::uint32_t p = next[term]++;
            docids[p] = static_cast<ToolId>(d);
            tfs[p] = tf;
        }
    }
    index.compute_impacts(doc_length, options);
    index.lengths_.owned().assign(doc_length.begin(), doc_length.end());
    index.vocabulary_ = std::move(vocabulary);
    return index;
}

std::unique_ptr<Bm25Index> Bm25Index::patched(const Bm25Index& previous,
                                              std::shared_ptr<const Bm25Vocabulary> vocabulary,
                                              std::span<const Bm25DocumentTerms> documents,
                                              std::span<const ToolId> changed,
                                              std::span<const Bm25DocumentTerms> previous_terms,
                                              const Bm25Options& options) {
    if (previous.tfs_.size() != previous.docids_.size() || previous.num_docs_ != documents.size() ||
        vocabulary->size() < previous.num_terms() || previous_terms.size() != changed.size()) {
        return nullptr;
    }
    Bitset is_changed(documents.size());
    for (const ToolId d : changed) {
        is_changed.set(d);
    }
    // The terms whose postings change: those a changed document had or has.
    Bitset touched(vocabulary->size());
    for (const Bm25DocumentTerms& doc : previous_terms) {
        for (const auto& [term, tf] : doc.terms) {
            touched.set(term);
        }
    }
    // The changed documents' new postings, by term and then by document.
    struct Added {
        TermId term;
        ToolId doc;
        float tf;
    };
    std::vector<Added> added;
    for (const ToolId d : changed) {
        for (const auto& [term, tf] : documents[d].terms) {
            added.push_back({term, d, tf});
            touched.set(term);
        }
    }
    std::sort(added.begin(), added.end(), [](const Added& a, const Added& b) {
        return a.term != b.term ? a.term < b.term : a.doc < b.doc;
    });
    std::vector<float> doc_length;
    doc_length.reserve(documents.size());
    for (const Bm25DocumentTerms& doc : documents) {
        doc_length.push_back(doc.length);
    }
    const std::vector<double> norm = length_norms(doc_length, options);

    auto index = std::make_unique<Bm25Index>();
    index->num_docs_ = documents.size();
    const std::size_t capacity = previous.docids_.size() + added.size();
    // Sized without zeroing: every element up to `out` is written below, the rest cut off.
    PodVector<ToolId>& new_docids = index->docids_.owned();
    PodVector<std::uint32_t>& offsets = index->offsets_.owned();
    PodVector<float>& new_tfs = index->tfs_.owned();
    new_docids.resize(capacity);
    new_tfs.resize(capacity);
    index->impacts_.owned().resize(capacity);
    offsets.resize(vocabulary->size() + 1);
    ToolId* docids = new_docids.data();
    float* tfs = new_tfs.data();
    const ToolId* old_docids = previous.docids_.data();
    const float* old_tfs = previous.tfs_.data();
    const std::size_t old_terms = previous.num_terms();
    std::uint32_t out = 0;
    auto next_added = added.begin();
    for (std::size_t t = 0; t < vocabulary->size(); ++t) {
        offsets[t] = out;
        std::uint32_t p = t < old_terms ? previous.offsets_[t] : 0;
        const std::uint32_t end = t < old_terms ? previous.offsets_[t + 1] : 0;
        if (!touched.test(static_cast<ToolId>(t))) {
            std::copy(old_docids + p, old_docids + end, docids + out);
            std::copy(old_tfs + p, old_tfs + end, tfs + out);
            out += end - p;
        } else {
            // Both lists are in document order: merge, dropping the changed documents' old
            // postings (they come back from `added` if the document still has the term).
            for (; next_added != added.end() && next_added->term == t; ++next_added) {
                for (; p < end && old_docids[p] < next_added->doc; ++p) {
                    if (!is_changed.test(old_docids[p])) {
                        docids[out] = old_docids[p];
                        tfs[out++] = old_tfs[p];
                    }
                }
                if (p < end && old_docids[p] == next_added->doc) {
                    ++p;
                }
                docids[out] = next_added->doc;
                tfs[out++] = next_added->tf;
            }
            for (; p < end; ++p) {
                if (!is_changed.test(old_docids[p])) {
                    docids[out] = old_docids[p];
                    tfs[out++] = old_tfs[p];
                }
            }
        }
        // Impacts while the term's postings are still in cache.
        offsets[t + 1] = out;
        index->term_impacts(t, norm, options);
    }
    offsets.back() = out;
    new_docids.resize(out);
    new_tfs.resize(out);
    index->impacts_.owned().resize(out);
    index->lengths_.owned().assign(doc_length.begin(), doc_length.end());
    index->vocabulary_ = std::move(vocabulary);
    return index;
}

std::vector<double> Bm25Index::length_norms(const std::vector<float>& doc_length,
                                            const Bm25Options& options) {
    double total_length = 0;
    for (float len : doc_length) {
        total_length += static_cast<double>(len);
    }
    const double avgdl =
        doc_length.empty() ? 1.0
                           : std::max(total_length / static_cast<double>(doc_length.size()), 1e-9);
    const auto k1 = static_cast<double>(options.k1);
    const auto b = static_cast<double>(options.b);
    std::vector<double> norm(doc_length.size());
    for (std::size_t d = 0; d < doc_length.size(); ++d) {
        norm[d] = k1 * (1.0 - b + b * static_cast<double>(doc_length[d]) / avgdl);
    }
    return norm;
}

void Bm25Index::term_impacts(std::size_t t,
                             const std::vector<double>& norm,
                             const Bm25Options& options) {
    const std::uint32_t* offsets = offsets_.data();
    const double df = static_cast<double>(offsets[t + 1] - offsets[t]);
    if (df == 0) {
        return;  // a term no document uses any more
    }
    const double n = static_cast<double>(num_docs_);
    const auto k1 = static_cast<double>(options.k1);
    const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
    const ToolId* docids = docids_.data();
    float* impacts = impacts_.owned().data();
    for (std::uint32_t p = offsets[t]; p < offsets[t + 1]; ++p) {
        impacts[p] = impact(idf, tfs_[p], k1, norm[docids[p]]);
    }
}

std::string Bm25Index::adopt_weights(SharedArray<float> tfs,
                                     SharedArray<float> lengths,
                                     const Bm25Options& options) {
    if (tfs.size() != docids_.size()) {
        return "it has " + std::to_string(tfs.size()) + " weighted tfs for " +
               std::to_string(docids_.size()) + " postings";
    }
    if (lengths.size() != num_docs_) {
        return "it has " + std::to_string(lengths.size()) + " lengths for " +
               std::to_string(num_docs_) + " documents";
    }
    std::vector<double> summed(num_docs_, 0.0);
    const ToolId* docids = docids_.data();
    for (std::size_t p = 0; p < tfs.size(); ++p) {
        if (!std::isfinite(tfs[p]) || tfs[p] <= 0.0f) {
            return "a weighted tf is not a positive number";
        }
        summed[docids[p]] += static_cast<double>(tfs[p]);  // docids checked on decoding
    }
    std::vector<float> doc_length(lengths.begin(), lengths.end());
    for (std::size_t d = 0; d < num_docs_; ++d) {
        // Summed in another order than the build's: equal up to rounding.
        if (!std::isfinite(doc_length[d]) ||
            std::abs(summed[d] - static_cast<double>(doc_length[d])) >
                1e-4 * std::max(1.0, summed[d])) {
            return "the length of document " + std::to_string(d) + " is not the sum of its tfs";
        }
    }
    const std::vector<double> norm = length_norms(doc_length, options);
    const std::uint32_t* offsets = offsets_.data();
    const float* stored = impacts_.data();
    const double n = static_cast<double>(num_docs_);
    const auto k1 = static_cast<double>(options.k1);
    for (std::size_t t = 0; t + 1 < offsets_.size(); ++t) {
        const double df = static_cast<double>(offsets[t + 1] - offsets[t]);
        const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
        for (std::uint32_t p = offsets[t]; p < offsets[t + 1]; ++p) {
            const float expected = impact(idf, tfs[p], k1, norm[docids[p]]);
            if (std::abs(expected - stored[p]) > 1e-5f * std::max(1.0f, std::abs(expected))) {
                return "its tfs do not give the stored impacts";
            }
        }
    }
    tfs_ = std::move(tfs);
    lengths_ = std::move(lengths);
    return {};
}

void Bm25Index::compute_impacts(const std::vector<float>& doc_length, const Bm25Options& options) {
    const std::vector<double> norm = length_norms(doc_length, options);
    impacts_.owned().resize(tfs_.size());
    for (std::size_t t = 0; t + 1 < offsets_.size(); ++t) {
        term_impacts(t, norm, options);
    }
}

std::shared_ptr<const Bm25Vocabulary> Bm25Index::empty_vocabulary() {
    static const auto empty = std::make_shared<const Bm25Vocabulary>();
    return empty;
}

std::unique_ptr<Bm25Index> Bm25Index::from_parts(std::size_t num_docs,
                                                 std::span<const std::string_view> terms,
                                                 SharedArray<std::uint32_t> offsets,
                                                 SharedArray<ToolId> docids,
                                                 SharedArray<float> impacts) {
    if (offsets.size() != terms.size() + 1 || offsets[0] != 0 ||
        offsets[terms.size()] != docids.size() || impacts.size() != docids.size()) {
        return nullptr;
    }
    const std::uint32_t* offset = offsets.data();
    const ToolId* docid = docids.data();
    const float* impact = impacts.data();
    // Every offset is ordered before any list is read: with only the first and last offsets
    // pinned, a later decreasing offset would let an earlier list run past the postings.
    if (!std::is_sorted(offset, offset + terms.size() + 1)) {
        return nullptr;
    }
    for (std::size_t t = 0; t < terms.size(); ++t) {
        // One flag per list instead of a branch per posting: the lists of a large index are
        // checked at every open.
        if (offset[t] == offset[t + 1]) {
            continue;
        }
        unsigned bad = static_cast<unsigned>(docid[offset[t]] >= num_docs) |
                       static_cast<unsigned>(!std::isfinite(impact[offset[t]]));
        for (std::uint32_t p = offset[t] + 1; p < offset[t + 1]; ++p) {
            bad |= static_cast<unsigned>(docid[p] >= num_docs) |
                   static_cast<unsigned>(docid[p] <= docid[p - 1]) |
                   static_cast<unsigned>(!std::isfinite(impact[p]));
        }
        if (bad != 0) {
            return nullptr;
        }
    }
    std::shared_ptr<const Bm25Vocabulary> vocabulary = Bm25Vocabulary::of_terms(terms);
    if (!vocabulary) {
        return nullptr;  // a term twice
    }
    auto index = std::make_unique<Bm25Index>();
    index->vocabulary_ = std::move(vocabulary);
    index->num_docs_ = num_docs;
    index->offsets_ = std::move(offsets);
    index->docids_ = std::move(docids);
    index->impacts_ = std::move(impacts);
    return index;
}

std::vector<std::string_view> Bm25Index::terms() const {
    std::vector<std::string_view> out(num_terms());
    for (std::size_t id = 0; id < out.size(); ++id) {
        out[id] = vocabulary_->term(static_cast<TermId>(id));
    }
    return out;
}

std::size_t Bm25Index::memory_bytes() const noexcept {
    std::size_t bytes = offsets_.size() * sizeof(std::uint32_t) + docids_.size() * sizeof(ToolId) +
                        (impacts_.size() + tfs_.size()) * sizeof(float);
    return bytes + vocabulary_->memory_bytes();
}

std::size_t Bm25Index::doc_freq(const std::string& term) const {
    const std::optional<TermId> id = vocabulary_->find(term);
    return id ? offsets_[*id + 1] - offsets_[*id] : 0;
}

}  // namespace scout::detail
