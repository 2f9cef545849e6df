#include "dense/vector_store.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace scout::detail {

VectorStore::VectorStore(std::size_t dim, PodVector<float> rows) : dim_(dim) {
    if (dim == 0 ? !rows.empty() : rows.size() % dim != 0) {
        throw std::invalid_argument("vector rows do not fill whole rows of their dimension");
    }
    size_ = dim == 0 ? 0 : rows.size() / dim;
    auto owned = std::make_shared<const PodVector<float>>(std::move(rows));
    set_chunks(owned->data());
    owners_.assign(chunks_.size(), owned);
}

VectorStore::VectorStore(std::size_t dim,
                         std::span<const float> rows,
                         const std::shared_ptr<const void>& owner)
    : dim_(dim) {
    if (dim == 0 ? !rows.empty() : rows.size() % dim != 0) {
        throw std::invalid_argument("vector rows do not fill whole rows of their dimension");
    }
    size_ = dim == 0 ? 0 : rows.size() / dim;
    set_chunks(rows.data());
    owners_.assign(chunks_.size(), owner);
}

void VectorStore::set_chunks(const float* rows) {
    const std::size_t count = (size_ + kChunkRows - 1) / kChunkRows;
    chunks_.resize(count);
    for (std::size_t c = 0; c < count; ++c) {
        chunks_[c] = rows + c * kChunkRows * dim_;
    }
}

VectorStore VectorStore::patched(const VectorStore& before,
                                 std::span<const std::size_t> changed,
                                 const std::function<const float*(std::size_t)>& row_of) {
    VectorStore out = before;
    const std::size_t dim = before.dim_;
    std::size_t at = 0;
    while (at < changed.size()) {
        const std::size_t c = changed[at] / kChunkRows;
        const std::size_t first = c * kChunkRows;
        const std::size_t rows = std::min(kChunkRows, before.size_ - first);
        PodVector<float> copy(rows * dim);
        std::memcpy(copy.data(), before.chunks_[c], rows * dim * sizeof(float));
        for (; at < changed.size() && changed[at] / kChunkRows == c; ++at) {
            std::memcpy(copy.data() + (changed[at] - first) * dim,
                        row_of(changed[at]),
                        dim * sizeof(float));
        }
        auto owned = std::make_shared<const PodVector<float>>(std::move(copy));
        out.chunks_[c] = owned->data();
        out.owners_[c] = std::move(owned);
    }
    return out;
}

void VectorStore::for_each_run(const std::function<void(std::span<const float>)>& run) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
        const std::size_t rows = std::min(kChunkRows, size_ - c * kChunkRows);
        run({chunks_[c], rows * dim_});
    }
}

}  // namespace scout::detail
