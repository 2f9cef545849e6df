// hnsw_peer.hpp: hnswlib used directly, without scout's wrapper (the "hnswlib" column).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "dense/dense_index.hpp"

namespace scout::bench {

// The benchmarks measure the library's internals (indexes, kernels) directly.
using namespace scout::detail;  // NOLINT(google-build-using-namespace)

class HnswPeer {
public:
    /// Builds an inner-product graph over `vectors` (M, ef_construction 200, seed 42), ef = `ef`.
    HnswPeer(const VectorStore& vectors, std::size_t m, std::size_t ef);
    ~HnswPeer();
    HnswPeer(const HnswPeer&) = delete;
    HnswPeer& operator=(const HnswPeer&) = delete;
    /// Best first.
    void search(const float* query, std::size_t k, std::vector<ScoredDoc>& out) const;
    [[nodiscard]] std::size_t memory_bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace scout::bench
