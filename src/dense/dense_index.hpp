// dense_index.hpp: the dense branch's internal interface. Vectors are L2-normalized, so the
// inner product is the cosine similarity. Implementations: exact flat scan and HNSW.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "scout/options.hpp"
#include "util/bitset.hpp"
#include "util/topk.hpp"

namespace scout {

/// Row-major N x dim matrix of unit vectors, shared between index variants and snapshots.
struct VectorStore {
    std::size_t dim = 0;
    std::vector<float> data;
    [[nodiscard]] std::size_t size() const noexcept { return dim == 0 ? 0 : data.size() / dim; }
    [[nodiscard]] const float* row(std::size_t i) const noexcept { return data.data() + i * dim; }
};

class DenseIndex {
public:
    virtual ~DenseIndex() = default;
    /// The k nearest vectors to the unit vector `query` (dim floats), restricted to `allowed`
    /// when given; best first (score desc, id asc). Thread-safe.
    virtual void search(const float* query, std::size_t k, const Bitset* allowed,
                        std::vector<ScoredDoc>& out) const = 0;
    [[nodiscard]] virtual const char* kind() const noexcept = 0;
    [[nodiscard]] virtual std::size_t memory_bytes() const noexcept = 0;
    [[nodiscard]] virtual const VectorStore& vectors() const noexcept = 0;
};

/// Exact search over every (allowed) vector.
[[nodiscard]] std::unique_ptr<DenseIndex> make_flat_index(std::shared_ptr<const VectorStore> vectors);
/// HNSW graph (hnswlib) for unfiltered queries; filtered ones scan the allowed vectors exactly.
[[nodiscard]] std::unique_ptr<DenseIndex> make_hnsw_index(std::shared_ptr<const VectorStore> vectors,
                                                          const DenseOptions& options);
/// Picks flat or HNSW from options.kind and the number of vectors.
[[nodiscard]] std::unique_ptr<DenseIndex> make_dense_index(std::shared_ptr<const VectorStore> vectors,
                                                           const DenseOptions& options);

/// Exact top-k by inner product over all rows, or over `allowed` rows only.
void exact_search(const VectorStore& vectors, const float* query, std::size_t k,
                  const Bitset* allowed, std::vector<ScoredDoc>& out);

/// Scales v to unit length in place; false if it is zero or not finite.
[[nodiscard]] bool normalize(float* v, std::size_t dim) noexcept;

}  // namespace scout
