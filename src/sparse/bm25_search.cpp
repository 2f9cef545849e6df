// bm25_search.cpp: the BM25 query path. Term-at-a-time accumulation into a per-thread dense
// accumulator, then top-k selection by one of two routes:
//  - few postings (sum of the query's posting lengths well below N): the touched documents are
//    recorded while accumulating, and only they are offered to the heap, so the cost is
//    O(postings) whatever N is;
//  - many postings: a SIMD threshold scan over the accumulator skips whole blocks that cannot
//    enter the heap (cheaper than a touched list once most documents are touched).
// Steady-state searches allocate nothing: every buffer is thread-local scratch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>

#include "simd/kernels.hpp"
#include "sparse/bm25_index.hpp"
#include "util/thread_scratch.hpp"
#include "util/top_floor.hpp"

namespace scout::detail {
namespace {

struct Scratch {
    std::vector<float> acc;  // all zeros between searches
    std::vector<ToolId> touched;
    std::vector<std::pair<TermId, float>> query;
    TopK top;                   // the scan route: a tight threshold lets next_above skip more
    TopKBuffer buffer;          // the touched-list route: cheap pushes for many candidates
    std::vector<float> maxima;  // the scan route without a filter: each block's best,
    std::vector<std::uint32_t> counts;  // their histogram,
    std::vector<std::uint64_t> keys;    // and the entries at or above the floor, as keys
};

bool admits(const Bitset* allowed, std::size_t doc) noexcept {
    return allowed == nullptr || allowed->test(static_cast<ToolId>(doc));
}

/// The k best positive entries of acc[0, n) under RankOrder, best first: the same list as
/// pushing every positive entry into a TopK, without a heap update per candidate (which
/// branches on data no predictor learns). A floor under the k-th largest of the blocks' maxima
/// (kth_largest_floor) is under the k-th best score, so only blocks holding an entry at or
/// above it are read, and their entries at or above it are kept without a branch, each as one
/// integer key that orders as RankOrder does (rank_key_not_negative: the accumulator holds no
/// negative score); one nth_element and a sort of the few keys give the k best.
void best_entries(const simd::Kernels& kern,
                  const float* acc,
                  std::size_t n,
                  std::size_t k,
                  Scratch& s,
                  std::vector<ScoredDoc>& out) {
    const std::size_t blocks = (n + simd::kScanBlock - 1) / simd::kScanBlock;
    if (s.keys.size() < n + simd::kScanBlock) {
        s.keys.resize(n + simd::kScanBlock);
    }
    std::uint64_t* keys = s.keys.data();
    std::size_t count = 0;
    float above = 0.0f;  // kept: the entries above it (scores of matches are > 0)
    const auto keep_block = [&](std::size_t b) {
        const std::size_t end = std::min((b + 1) * simd::kScanBlock, n);
        for (std::size_t pos = b * simd::kScanBlock; pos < end; ++pos) {
            keys[count] = rank_key_not_negative(acc[pos], static_cast<std::uint32_t>(pos));
            count += static_cast<std::size_t>(acc[pos] > above);
        }
    };
    if (blocks < k) {
        for (std::size_t b = 0; b < blocks; ++b) {
            keep_block(b);
        }
    } else {
        s.maxima.resize(blocks);
        kern.block_max(acc, n, s.maxima.data());
        const float floor = kth_largest_floor(s.maxima, k, s.counts);
        if (floor > 0.0f) {
            above = std::nextafter(floor, 0.0f);  // x > above  <=>  x >= floor
        }
        for (std::size_t b = 0; b < blocks; ++b) {
            if (s.maxima[b] > above) {
                keep_block(b);
            }
        }
    }
    if (count > k) {
        std::nth_element(keys, keys + (k - 1), keys + count, std::greater<>{});
        count = k;
    }
    std::sort(keys, keys + count, std::greater<>{});
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t pos_i = rank_key_position(keys[i]);
        out[i] = {static_cast<ToolId>(pos_i), acc[pos_i]};
    }
}

/// The allowed entries of acc[0, n) pushed into `top` by a threshold scan in id order.
void scan_allowed(
    const simd::Kernels& kern, const float* acc, std::size_t n, const Bitset* allowed, TopK& top) {
    // Threshold scan in id order: an equal score met later has a higher id and cannot enter, so
    // the strict > is exact. Scores are > 0 for matches; the floor of 0 skips non-matches.
    std::size_t pos = 0;
    while (true) {
        const float floor = std::max(0.0f, top.threshold());
        pos = kern.next_above(acc, pos, n, floor);
        if (pos >= n) {
            break;
        }
        const std::size_t end = std::min(pos + simd::kScanBlock, n);
        for (; pos < end; ++pos) {
            const float score = acc[pos];
            if (score > 0.0f && score > top.threshold() && admits(allowed, pos)) {
                top.push(static_cast<ToolId>(pos), score);
            }
        }
    }
}

}  // namespace

namespace {

float weight_of(const std::string&) noexcept {
    return 1.0f;
}
float weight_of(const QueryTerm& t) noexcept {
    return t.weight;
}
float weight_of(const WeightedTermId& t) noexcept {
    return t.weight;
}

/// The id of a query term: looked up in the vocabulary, or given.
std::optional<TermId> id_of(const Bm25Index& index, const std::string& t) {
    return index.term_id(t);
}
std::optional<TermId> id_of(const Bm25Index& index, const QueryTerm& t) {
    return index.term_id(t.term);
}
std::optional<TermId> id_of(const Bm25Index&, const WeightedTermId& t) {
    return t.id;
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

void Bm25Index::search(std::span<const WeightedTermId> terms,
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
    const std::uint32_t* offsets = offsets_.data();
    const ToolId* docids = docids_.data();
    const float* impacts = impacts_.data();
    // Distinct query terms with their summed weights, and the postings they will touch.
    s.query.clear();
    std::size_t postings = 0;
    for (const Term& qt : terms) {
        const float weight = weight_of(qt);
        const std::optional<TermId> id = id_of(*this, qt);
        if (!id || !(weight > 0.0f)) {
            continue;
        }
        auto same = std::find_if(
            s.query.begin(), s.query.end(), [&](const auto& q) { return q.first == *id; });
        if (same == s.query.end()) {
            s.query.emplace_back(*id, weight);
            postings += offsets[*id + 1] - offsets[*id];
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
            for (std::uint32_t p = offsets[term]; p < offsets[term + 1]; ++p) {
                const ToolId d = docids[p];
                if (acc[d] == 0.0f) {  // impacts are > 0, so zero means untouched
                    s.touched.push_back(d);
                }
                acc[d] += qtf * impacts[p];
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
        for (std::uint32_t p = offsets[term]; p < offsets[term + 1]; ++p) {
            acc[docids[p]] += qtf * impacts[p];
        }
    }
    const simd::Kernels& kern = simd::active();
    if (allowed == nullptr) {
        best_entries(kern, acc, num_docs_, k, s, out);
    } else {
        scan_allowed(kern, acc, num_docs_, allowed, top);
        top.drain_sorted(out);
    }
    // Clearing: re-walking the postings beats a full memset while they are fewer than N / 2.
    if (postings * 2 < num_docs_) {
        for (const auto& [term, qtf] : s.query) {
            for (std::uint32_t p = offsets[term]; p < offsets[term + 1]; ++p) {
                acc[docids[p]] = 0.0f;
            }
        }
    } else {
        std::fill(acc, acc + num_docs_, 0.0f);
    }
}

}  // namespace scout::detail
