// flat_index.cpp: exact inner-product search with the SIMD dot kernel. At a few thousand tools
// this is both exact and about as fast as a graph search.
#include <cmath>

#include "dense/dense_index.hpp"
#include "simd/kernels.hpp"

namespace scout {

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

void exact_search(const VectorStore& vectors, const float* query, std::size_t k,
                  const Bitset* allowed, std::vector<ScoredDoc>& out) {
    const auto dot = simd::active().dot;
    const std::size_t n = vectors.size();
    TopK top(k);
    for (std::size_t i = 0; i < n; ++i) {
        if (allowed != nullptr && !allowed->test(static_cast<ToolId>(i))) {
            continue;
        }
        top.push(static_cast<ToolId>(i), dot(query, vectors.row(i), vectors.dim));
    }
    top.drain_sorted(out);
}

namespace {

class FlatIndex final : public DenseIndex {
public:
    explicit FlatIndex(std::shared_ptr<const VectorStore> vectors) : vectors_(std::move(vectors)) {}

    void search(const float* query, std::size_t k, const Bitset* allowed,
                std::vector<ScoredDoc>& out) const override {
        exact_search(*vectors_, query, k, allowed, out);
    }
    const char* kind() const noexcept override { return "flat"; }
    std::size_t memory_bytes() const noexcept override { return vectors_->data.size() * sizeof(float); }
    const VectorStore& vectors() const noexcept override { return *vectors_; }

private:
    std::shared_ptr<const VectorStore> vectors_;
};

}  // namespace

std::unique_ptr<DenseIndex> make_flat_index(std::shared_ptr<const VectorStore> vectors) {
    return std::make_unique<FlatIndex>(std::move(vectors));
}

std::unique_ptr<DenseIndex> make_dense_index(std::shared_ptr<const VectorStore> vectors,
                                             const DenseOptions& options) {
    const bool hnsw = options.kind == DenseIndexKind::hnsw ||
                      (options.kind == DenseIndexKind::automatic && vectors->size() >= options.hnsw_min_tools);
    return hnsw ? make_hnsw_index(std::move(vectors), options) : make_flat_index(std::move(vectors));
}

}  // namespace scout
