// hnsw_index.cpp: the only file that includes hnswlib (Malkov & Yashunin, TPAMI 2018).
// hnswlib 0.6 has no search-time filter, so a scoped query scans its allowed rows exactly.
#include <algorithm>

#include <hnswlib/hnswlib.h>

#include "dense/dense_index.hpp"

namespace scout {
namespace {

class HnswIndex final : public DenseIndex {
public:
    HnswIndex(std::shared_ptr<const VectorStore> vectors, const DenseOptions& options)
        : vectors_(std::move(vectors)),
          space_(vectors_->dim),
          graph_(&space_, std::max<std::size_t>(vectors_->size(), 1), options.hnsw_m,
                 options.hnsw_ef_construction, options.seed) {
        for (std::size_t i = 0; i < vectors_->size(); ++i) {
            graph_.addPoint(vectors_->row(i), static_cast<hnswlib::labeltype>(i));
        }
        graph_.setEf(options.hnsw_ef_search);
    }

    void search(const float* query, std::size_t k, const Bitset* allowed,
                std::vector<ScoredDoc>& out) const override {
        if (allowed != nullptr) {
            exact_search(*vectors_, query, k, allowed, out);
            return;
        }
        out.clear();
        const std::size_t n = std::min(k, vectors_->size());
        if (n == 0) {
            return;
        }
        auto found = graph_.searchKnn(query, n);
        while (!found.empty()) {
            // InnerProductSpace distance is 1 - <q, v>.
            out.push_back({static_cast<ToolId>(found.top().second), 1.0f - found.top().first});
            found.pop();
        }
        std::sort(out.begin(), out.end(), ranks_before);
    }

    const char* kind() const noexcept override { return "hnsw"; }
    std::size_t memory_bytes() const noexcept override {
        return vectors_->data.size() * sizeof(float) +
               graph_.max_elements_ * graph_.size_data_per_element_ +
               graph_.cur_element_count * graph_.size_links_per_element_;
    }
    const VectorStore& vectors() const noexcept override { return *vectors_; }

private:
    std::shared_ptr<const VectorStore> vectors_;
    hnswlib::InnerProductSpace space_;
    hnswlib::HierarchicalNSW<float> graph_;
};

}  // namespace

std::unique_ptr<DenseIndex> make_hnsw_index(std::shared_ptr<const VectorStore> vectors,
                                            const DenseOptions& options) {
    return std::make_unique<HnswIndex>(std::move(vectors), options);
}

}  // namespace scout
