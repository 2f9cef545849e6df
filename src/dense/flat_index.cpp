// flat_index.cpp: exact inner-product search. Rows are scored four at a time (the query is
// loaded once per group) and fed to a thread-local top-k collector. At a few thousand tools
// this is exact and as fast as a graph search; the int8 variant lives in int8_scan.cpp.
#include <array>
#include <cmath>

#include "dense/dense_index.hpp"
#include "simd/kernels.hpp"

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

void exact_search(const VectorStore& vectors,
                  const float* query,
                  std::size_t k,
                  const Bitset* allowed,
                  std::vector<ScoredDoc>& out) {
    const simd::Kernels& kern = simd::active();
    const std::size_t n = vectors.size();
    const std::size_t dim = vectors.dim;
    thread_local TopKBuffer scratch;  // one TLS lookup, not one per row (see int8_scan.cpp)
    TopKBuffer& top = scratch;
    top.reset(k);
    std::array<const float*, simd::kRowGroup> rows{};
    std::array<ToolId, simd::kRowGroup> ids{};
    std::array<float, simd::kRowGroup> scores{};
    std::size_t filled = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (allowed != nullptr && !allowed->test(static_cast<ToolId>(i))) {
            continue;
        }
        rows[filled] = vectors.row(i);
        ids[filled] = static_cast<ToolId>(i);
        if (++filled == simd::kRowGroup) {
            kern.dot_rows(query, rows.data(), dim, scores.data());
            for (std::size_t r = 0; r < simd::kRowGroup; ++r) {
                top.push(ids[r], scores[r]);
            }
            filled = 0;
        }
    }
    // dot() sums in the same order as dot_rows(), so the tail scores like a full group.
    for (std::size_t r = 0; r < filled; ++r) {
        top.push(ids[r], kern.dot(query, rows[r], dim));
    }
    top.drain_sorted(out);
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
        return vectors_->data.size() * sizeof(float) + codes_.memory_bytes();
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
    const bool hnsw =
        options.kind == DenseIndexKind::hnsw ||
        (options.kind == DenseIndexKind::automatic && vectors->size() >= options.hnsw_min_tools);
    return hnsw ? make_hnsw_index(std::move(vectors), options, pool, progress)
                : make_flat_index(std::move(vectors), options);
}

}  // namespace scout::detail
