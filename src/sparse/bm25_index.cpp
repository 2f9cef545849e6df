// bm25_index.cpp: BM25 with Lucene's non-negative idf, ln(1 + (N - df + 0.5) / (df + 0.5)),
// and the classic saturation tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
// (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009).
#include <algorithm>
#include <cmath>

#include "simd/kernels.hpp"
#include "sparse/bm25_index.hpp"

namespace scout {

void Bm25Index::Builder::begin_document() { doc_length_.push_back(0.0f); }

void Bm25Index::Builder::add(const std::string& term, float weight) {
    if (doc_length_.empty() || weight <= 0.0f) {
        return;
    }
    const auto doc = static_cast<ToolId>(doc_length_.size() - 1);
    // find() first: emplace() would allocate a node (and copy the term) on every occurrence.
    auto it = vocabulary_.find(term);
    if (it == vocabulary_.end()) {
        it = vocabulary_.emplace(term, static_cast<TermId>(postings_.size())).first;
        postings_.emplace_back();
    }
    auto& list = postings_[it->second];
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
    double total_length = 0;
    for (float len : doc_length_) {
        total_length += static_cast<double>(len);
    }
    const double avgdl = index.num_docs_ == 0 ? 1.0 : std::max(total_length / static_cast<double>(index.num_docs_), 1e-9);
    const double n = static_cast<double>(index.num_docs_);
    const auto k1 = static_cast<double>(options.k1);
    const auto b = static_cast<double>(options.b);

    std::size_t total_postings = 0;
    for (const auto& list : postings_) {
        total_postings += list.size();
    }
    index.offsets_.reserve(postings_.size() + 1);
    index.docids_.reserve(total_postings);
    index.impacts_.reserve(total_postings);
    index.offsets_.push_back(0);
    for (const auto& list : postings_) {
        const double df = static_cast<double>(list.size());
        const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
        for (const auto& [doc, weighted_tf] : list) {
            const auto tf = static_cast<double>(weighted_tf);
            const double norm = k1 * (1.0 - b + b * static_cast<double>(doc_length_[doc]) / avgdl);
            index.docids_.push_back(doc);
            index.impacts_.push_back(static_cast<float>(idf * tf * (k1 + 1.0) / (tf + norm)));
        }
        index.offsets_.push_back(static_cast<std::uint32_t>(index.docids_.size()));
    }
    index.vocabulary_ = std::move(vocabulary_);
    return index;
}

void Bm25Index::search(std::span<const std::string> terms, std::size_t k, const Bitset* allowed,
                       std::vector<ScoredDoc>& out) const {
    std::vector<QueryTerm> weighted;
    weighted.reserve(terms.size());
    for (const std::string& term : terms) {
        weighted.push_back({term, 1.0f});
    }
    search(std::span<const QueryTerm>(weighted), k, allowed, out);
}

void Bm25Index::search(std::span<const QueryTerm> terms, std::size_t k, const Bitset* allowed,
                       std::vector<ScoredDoc>& out) const {
    out.clear();
    if (num_docs_ == 0 || k == 0) {
        return;
    }
    // Distinct query terms with their summed weights.
    std::vector<std::pair<TermId, float>> query;
    for (const QueryTerm& qt : terms) {
        auto it = vocabulary_.find(qt.term);
        if (it == vocabulary_.end() || !(qt.weight > 0.0f)) {
            continue;
        }
        auto same = std::find_if(query.begin(), query.end(),
                                 [&](const auto& q) { return q.first == it->second; });
        if (same == query.end()) {
            query.emplace_back(it->second, qt.weight);
        } else {
            same->second += qt.weight;
        }
    }
    if (query.empty()) {
        return;
    }

    // Term-at-a-time into a per-thread accumulator; it is all zeros between calls.
    thread_local std::vector<float> acc;
    if (acc.size() < num_docs_) {
        acc.resize(num_docs_, 0.0f);
    }
    for (const auto& [term, qtf] : query) {
        for (std::uint32_t p = offsets_[term]; p < offsets_[term + 1]; ++p) {
            acc[docids_[p]] += qtf * impacts_[p];
        }
    }

    // Threshold scan: skip blocks that cannot enter the heap. Scores are > 0 for matches, so
    // the floor of 0 also skips non-matching documents.
    const simd::Kernels& kern = simd::active();
    TopK top(k);
    std::size_t pos = 0;
    while (true) {
        const float floor = std::max(0.0f, top.threshold());
        pos = kern.next_above(acc.data(), pos, num_docs_, floor);
        if (pos >= num_docs_) {
            break;
        }
        const std::size_t end = std::min(pos + simd::kScanBlock, num_docs_);
        for (; pos < end; ++pos) {
            const float s = acc[pos];
            if (s > 0.0f && s > top.threshold() && (allowed == nullptr || allowed->test(static_cast<ToolId>(pos)))) {
                top.push(static_cast<ToolId>(pos), s);
            }
        }
    }
    for (const auto& [term, qtf] : query) {
        for (std::uint32_t p = offsets_[term]; p < offsets_[term + 1]; ++p) {
            acc[docids_[p]] = 0.0f;
        }
    }
    top.drain_sorted(out);
}

std::size_t Bm25Index::memory_bytes() const noexcept {
    std::size_t bytes = offsets_.size() * sizeof(std::uint32_t) + docids_.size() * sizeof(ToolId) +
                        impacts_.size() * sizeof(float);
    for (const auto& [term, id] : vocabulary_) {
        bytes += term.size() + sizeof(id) + 32;  // key, value, node overhead (approximate)
    }
    return bytes;
}

std::size_t Bm25Index::doc_freq(const std::string& term) const {
    auto it = vocabulary_.find(term);
    return it == vocabulary_.end() ? 0 : offsets_[it->second + 1] - offsets_[it->second];
}

}  // namespace scout
