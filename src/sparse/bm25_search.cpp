// bm25_search.cpp: the BM25 query path. Term-at-a-time accumulation into a per-thread dense
// accumulator, then top-k selection by one of two routes:
//  - few postings (sum of the query's posting lengths well below N): the touched documents are
//    recorded while accumulating, and only they are offered to the heap, so the cost is
//    O(postings) whatever N is;
//  - many postings: a SIMD threshold scan over the accumulator skips whole blocks that cannot
//    enter the heap (cheaper than a touched list once most documents are touched).
// Steady-state searches allocate nothing: every buffer is thread-local scratch.
#include <algorithm>

#include "simd/kernels.hpp"
#include "sparse/bm25_index.hpp"
#include "util/thread_scratch.hpp"

namespace scout::detail {
namespace {

struct Scratch {
    std::vector<float> acc;  // all zeros between searches
    std::vector<ToolId> touched;
    std::vector<std::pair<TermId, float>> query;
    TopK top;           // the scan route: a tight threshold lets next_above skip more
    TopKBuffer buffer;  // the touched-list route: cheap pushes for many candidates
};

bool admits(const Bitset* allowed, std::size_t doc) noexcept {
    return allowed == nullptr || allowed->test(static_cast<ToolId>(doc));
}

}  // namespace

namespace {

const std::string& term_of(const std::string& t) noexcept {
    return t;
}
const std::string& term_of(const QueryTerm& t) noexcept {
    return t.term;
}
float weight_of(const std::string&) noexcept {
    return 1.0f;
}
float weight_of(const QueryTerm& t) noexcept {
    return t.weight;
}

}  // namespace

void Bm25Index::search(std::span<const std::string> terms,
                       std::size_t k,
                       const Bitset* allowed,
                       std::vector<ScoredDoc>& out) const {
    search_terms(terms, k, allowed, out);
}

void Bm25Index::search(std::span<const QueryTerm> terms,
                       std::size_t k,
                       const Bitset* allowed,
                       std::vector<ScoredDoc>& out) const {
    search_terms(terms, k, allowed, out);
}

template <class Term>
void Bm25Index::search_terms(std::span<const Term> terms,
                             std::size_t k,
                             const Bitset* allowed,
                             std::vector<ScoredDoc>& out) const {
    out.clear();
    if (num_docs_ == 0 || k == 0) {
        return;
    }
    Scratch& s = thread_scratch<Scratch>();
    // Distinct query terms with their summed weights, and the postings they will touch.
    s.query.clear();
    std::size_t postings = 0;
    for (const Term& qt : terms) {
        const float weight = weight_of(qt);
        auto it = vocabulary_->find(term_of(qt));
        if (it == vocabulary_->end() || !(weight > 0.0f)) {
            continue;
        }
        auto same = std::find_if(
            s.query.begin(), s.query.end(), [&](const auto& q) { return q.first == it->second; });
        if (same == s.query.end()) {
            s.query.emplace_back(it->second, weight);
            postings += offsets_[it->second + 1] - offsets_[it->second];
        } else {
            same->second += weight;
        }
    }
    if (s.query.empty()) {
        return;
    }
    if (s.acc.size() < num_docs_) {
        s.acc.resize(num_docs_, 0.0f);
    }
    float* acc = s.acc.data();
    s.top.reset(k);
    TopK& top = s.top;

    // The touched list costs a branch and a store per new document; it pays while the postings
    // are a small fraction of N (measured: 1/8 is past the break-even of both routes).
    const bool sparse = postings * 8 < num_docs_;
    if (sparse) {
        s.touched.clear();
        for (const auto& [term, qtf] : s.query) {
            for (std::uint32_t p = offsets_[term]; p < offsets_[term + 1]; ++p) {
                const ToolId d = docids_[p];
                if (acc[d] == 0.0f) {  // impacts are > 0, so zero means untouched
                    s.touched.push_back(d);
                }
                acc[d] += qtf * impacts_[p];
            }
        }
        s.buffer.reset(k);
        for (const ToolId d : s.touched) {
            const float score = acc[d];
            acc[d] = 0.0f;
            // >= : an equal score with a lower id still ranks before the current worst.
            if (score > 0.0f && score >= s.buffer.threshold() && admits(allowed, d)) {
                s.buffer.push(d, score);
            }
        }
        s.buffer.drain_sorted(out);
        return;
    }

    for (const auto& [term, qtf] : s.query) {
        for (std::uint32_t p = offsets_[term]; p < offsets_[term + 1]; ++p) {
            acc[docids_[p]] += qtf * impacts_[p];
        }
    }
    // Threshold scan in id order: an equal score met later has a higher id and cannot enter, so
    // the strict > is exact. Scores are > 0 for matches; the floor of 0 skips non-matches.
    const simd::Kernels& kern = simd::active();
    std::size_t pos = 0;
    while (true) {
        const float floor = std::max(0.0f, top.threshold());
        pos = kern.next_above(acc, pos, num_docs_, floor);
        if (pos >= num_docs_) {
            break;
        }
        const std::size_t end = std::min(pos + simd::kScanBlock, num_docs_);
        for (; pos < end; ++pos) {
            const float score = acc[pos];
            if (score > 0.0f && score > top.threshold() && admits(allowed, pos)) {
                top.push(static_cast<ToolId>(pos), score);
            }
        }
    }
    // Clearing: re-walking the postings beats a full memset while they are fewer than N / 2.
    if (postings * 2 < num_docs_) {
        for (const auto& [term, qtf] : s.query) {
            for (std::uint32_t p = offsets_[term]; p < offsets_[term + 1]; ++p) {
                acc[docids_[p]] = 0.0f;
            }
        }
    } else {
        std::fill(acc, acc + num_docs_, 0.0f);
    }
    top.drain_sorted(out);
}

}  // namespace scout::detail
