// flat_index.cpp: exact inner-product search. Rows are scored four at a time (the query is
// loaded once per group) into a thread-local array, and best_scores picks the k best of it. At
// a few thousand tools this is exact and as fast as a graph search; the int8 variant lives in
// int8_scan.cpp.
#include <algorithm>
#include <array>
#include <cmath>

#include "dense/best_scores.hpp"
#include "dense/dense_index.hpp"
#include "simd/kernels.hpp"
#include "util/thread_scratch.hpp"

namespace scout::detail {

bool normalize(float* v, std::size_t dim) noexcept {
    double sum = 0;
    for (std::size_t i = 0; i < dim; ++i) {
        if (!std::isfinite(v[i])) {
            return false;
        }
        sum += static_cast<double>(v[i]) * static_cast<double>(v[i]);
    }
    if (sum <= 0.0) {
        return false;
    }
    const auto inv = static_cast<float>(1.0 / std::sqrt(sum));
    for (std::size_t i = 0; i < dim; ++i) {
        v[i] *= inv;
    }
    return true;
}

namespace {

/// scores[j] = the inner product of `query` and row id_of(j), for j < count. A template over
/// id_of, so the unfiltered scan (id_of(j) = j) has no branch or lookup per row.
template <class IdOf>
void score_rows(const simd::Kernels& kern,
                const VectorStore& vectors,
                const float* query,
                std::size_t count,
                IdOf id_of,
                std::vector<float>& scores) {
    scores.resize(count);
    std::array<const float*, simd::kRowGroup> rows{};
    std::size_t j = 0;
    for (; j + simd::kRowGroup <= count; j += simd::kRowGroup) {
        for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
            rows[r] = vectors.row(id_of(j + r));
        }
        kern.dot_rows(query, rows.data(), vectors.dim(), scores.data() + j);
    }
    // dot() sums in the same order as dot_rows(), so the tail scores like a full group.
    for (; j < count; ++j) {
        scores[j] = kern.dot(query, vectors.row(id_of(j)), vectors.dim());
    }
}

}  // namespace

void exact_search(const VectorStore& vectors,
                  const float* query,
                  std::size_t k,
                  const Bitset* allowed,
                  std::vector<ScoredDoc>& out) {
    const simd::Kernels& kern = simd::active();
    const std::size_t n = vectors.size();
    struct Scratch {
        std::vector<float> scores;
        std::vector<ToolId> ids;  // the allowed rows, when filtered
        BestScoresScratch best;
    };
    Scratch& s = thread_scratch<Scratch>();  // a plain reference inside the row loop
    s.ids.clear();
    if (allowed != nullptr) {
        allowed->members(n, s.ids);
        score_rows(
            kern, vectors, query, s.ids.size(), [&](std::size_t j) { return s.ids[j]; }, s.scores);
    } else {
        score_rows(
            kern, vectors, query, n, [](std::size_t j) { return j; }, s.scores);
    }
    best_scores(s.scores, s.ids, k, s.best, out);
    std::sort(out.begin(), out.end(), RankOrder{});
}

namespace {

class FlatIndex final : public DenseIndex {
public:
    FlatIndex(std::shared_ptr<const VectorStore> vectors, const DenseOptions& options)
        : vectors_(std::move(vectors)), options_(options) {
        if (options_.int8_scan) {
            codes_ = quantize_int8(*vectors_);
        }
    }

    void search(const float* query,
                std::size_t k,
                const Bitset* allowed,
                std::vector<ScoredDoc>& out) const override {
        if (options_.int8_scan) {
            const std::size_t pool = std::max<std::size_t>(k * options_.int8_rescore_factor, 32);
            int8_search(*vectors_, codes_, query, k, pool, allowed, out);
        } else {
            exact_search(*vectors_, query, k, allowed, out);
        }
    }
    const char* kind() const noexcept override { return options_.int8_scan ? "flat-int8" : "flat"; }
    std::size_t memory_bytes() const noexcept override {
        return vectors_->bytes() + codes_.memory_bytes();
    }
    const VectorStore& vectors() const noexcept override { return *vectors_; }

private:
    std::shared_ptr<const VectorStore> vectors_;
    DenseOptions options_;
    Int8Store codes_;
};

}  // namespace

std::unique_ptr<DenseIndex> make_flat_index(std::shared_ptr<const VectorStore> vectors,
                                            const DenseOptions& options) {
    return std::make_unique<FlatIndex>(std::move(vectors), options);
}

std::unique_ptr<DenseIndex> make_dense_index(std::shared_ptr<const VectorStore> vectors,
                                             const DenseOptions& options,
                                             ThreadPool* pool,
                                             const ThreadPool::Progress& progress) {
    const bool automatic = options.kind == DenseIndexKind::automatic;
    const std::size_t n = vectors->size();
    if (options.kind == DenseIndexKind::hnsw || (automatic && n >= options.hnsw_min_tools)) {
        return make_hnsw_index(std::move(vectors), options, pool, progress);
    }
    if (automatic && n >= options.int8_min_tools && !options.int8_scan) {
        DenseOptions int8 = options;
        int8.int8_scan = true;
        return make_flat_index(std::move(vectors), int8);
    }
    return make_flat_index(std::move(vectors), options);
}

}  // namespace scout::detail
