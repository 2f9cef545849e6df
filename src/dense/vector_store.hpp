// vector_store.hpp: the document vectors the dense indexes read, as fixed-size chunks of rows.
// A commit that re-embeds a few documents makes a store that shares every chunk none of them
// lies in with the previous snapshot's store, instead of copying all the rows (100 MB at 100,000
// tools of 256 dimensions). The rows of one chunk are contiguous; chunks need not be.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "util/pod_vector.hpp"

namespace scout::detail {

/// N x dim unit vectors (L2-normalized, so the inner product is the cosine), shared between
/// index variants and snapshots. Immutable once made.
class VectorStore {
public:
    /// Rows per chunk: a changed row costs a copy of its chunk (1 MiB at 256 dimensions).
    static constexpr std::size_t kChunkRows = 1024;

    VectorStore() = default;
    /// Owns `rows`, rows.size() / dim rows (dim > 0, or rows empty).
    VectorStore(std::size_t dim, PodVector<float> rows);
    /// Views `rows` where they lie (a mapped index file), kept alive by `owner`.
    VectorStore(std::size_t dim,
                std::span<const float> rows,
                const std::shared_ptr<const void>& owner);

    /// `before`'s rows, except each row i in `changed` (ascending, < before.size()), which is
    /// row_of(i) (dim floats). Shares every chunk no changed row lies in.
    [[nodiscard]] static VectorStore patched(
        const VectorStore& before,
        std::span<const std::size_t> changed,
        const std::function<const float*(std::size_t)>& row_of);

    [[nodiscard]] std::size_t dim() const noexcept { return dim_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] std::size_t bytes() const noexcept { return size_ * dim_ * sizeof(float); }
    [[nodiscard]] const float* row(std::size_t i) const noexcept {
        return chunks_[i / kChunkRows] + (i % kChunkRows) * dim_;
    }
    /// Calls `run` on each chunk's rows in order: together, every row, row-major.
    void for_each_run(const std::function<void(std::span<const float>)>& run) const;

private:
    void set_chunks(const float* rows);  // chunks_ over `size_` contiguous rows at `rows`

    std::size_t dim_ = 0;
    std::size_t size_ = 0;
    std::vector<const float*> chunks_;                 ///< first row of each chunk
    std::vector<std::shared_ptr<const void>> owners_;  ///< keeps each chunk alive
};

}  // namespace scout::detail
