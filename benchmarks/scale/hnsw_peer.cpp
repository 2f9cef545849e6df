// hnsw_peer.cpp: hnswlib 0.6 defines non-inline globals in its headers, so a second copy in
// this binary would clash with the one inside libscout. The peer's copy therefore lives in its
// own namespace: the standard headers hnswlib needs are included first (their guards keep them
// out of the namespace), then hnswlib itself inside `peer`.
#include <assert.h>
#include <cpuid.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <deque>
#include <fstream>
#include <iostream>
#include <list>
#include <mutex>
#include <queue>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <x86intrin.h>

namespace peer {
#include <hnswlib/hnswlib.h>
}  // namespace peer

#include "hnsw_peer.hpp"

namespace scout::bench {

struct HnswPeer::Impl {
    Impl(const VectorStore& v, std::size_t m)
        : space(v.dim()), graph(&space, std::max<std::size_t>(v.size(), 1), m, 200, 42) {}
    peer::hnswlib::InnerProductSpace space;
    peer::hnswlib::HierarchicalNSW<float> graph;
};

HnswPeer::HnswPeer(const VectorStore& vectors, std::size_t m, std::size_t ef)
    : impl_(std::make_unique<Impl>(vectors, m)) {
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        impl_->graph.addPoint(vectors.row(i), i);
    }
    impl_->graph.setEf(ef);
}

HnswPeer::~HnswPeer() = default;

void HnswPeer::search(const float* query, std::size_t k, std::vector<ScoredDoc>& out) const {
    out.clear();
    auto found = impl_->graph.searchKnn(query, k);
    while (!found.empty()) {
        out.push_back({static_cast<ToolId>(found.top().second), 1.0f - found.top().first});
        found.pop();
    }
    std::reverse(out.begin(), out.end());
}

std::size_t HnswPeer::memory_bytes() const {
    const auto& g = impl_->graph;
    return g.max_elements_ * g.size_data_per_element_ +
           g.cur_element_count * g.size_links_per_element_;
}

}  // namespace scout::bench
