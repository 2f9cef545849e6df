// hnsw_index.cpp: the only file that includes hnswlib (Malkov & Yashunin, TPAMI 2018).
// hnswlib 0.6 has no search-time filter: a broad scope searches the graph with over-fetch and
// keeps the allowed hits; a narrow one (or an over-fetch that comes back short) scans the
// allowed rows exactly, which then costs only O(allowed).
#include <algorithm>
#include <cmath>

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
                 options.hnsw_ef_construction, options.seed),
          min_fraction_(options.hnsw_filter_min_fraction) {
        for (std::size_t i = 0; i < vectors_->size(); ++i) {
            graph_.addPoint(vectors_->row(i), static_cast<hnswlib::labeltype>(i));
        }
        graph_.setEf(options.hnsw_ef_search);
    }

    void search(const float* query, std::size_t k, const Bitset* allowed,
                std::vector<ScoredDoc>& out) const override {
        out.clear();
        const std::size_t n = vectors_->size();
        if (k == 0 || n == 0) {
            return;
        }
        if (allowed == nullptr) {
            graph_search(query, std::min(k, n), nullptr, k, out);
            return;
        }
        const std::size_t count = allowed->count();
        const double fraction = static_cast<double>(count) / static_cast<double>(n);
        if (count <= k || fraction < static_cast<double>(min_fraction_)) {
            exact_search(*vectors_, query, k, allowed, out);
            return;
        }
        // Expect k allowed hits among k / fraction graph hits; fetch twice that for slack.
        const auto fetch = std::min(n, static_cast<std::size_t>(std::ceil(2.0 * static_cast<double>(k) / fraction)));
        graph_search(query, fetch, allowed, k, out);
        if (out.size() < k) {
            exact_search(*vectors_, query, k, allowed, out);
        }
    }

    const char* kind() const noexcept override { return "hnsw"; }
    std::size_t memory_bytes() const noexcept override {
        return vectors_->data.size() * sizeof(float) +
               graph_.max_elements_ * graph_.size_data_per_element_ +
               graph_.cur_element_count * graph_.size_links_per_element_;
    }
    const VectorStore& vectors() const noexcept override { return *vectors_; }

private:
    /// The `fetch` nearest graph hits, restricted to `allowed`, best `k` first.
    void graph_search(const float* query, std::size_t fetch, const Bitset* allowed, std::size_t k,
                      std::vector<ScoredDoc>& out) const {
        auto found = graph_.searchKnn(query, fetch);
        while (!found.empty()) {
            const auto id = static_cast<ToolId>(found.top().second);
            if (allowed == nullptr || allowed->test(id)) {
                // InnerProductSpace distance is 1 - <q, v>.
                out.push_back({id, 1.0f - found.top().first});
            }
            found.pop();
        }
        std::sort(out.begin(), out.end(), ranks_before);
        if (out.size() > k) {
            out.resize(k);
        }
    }

    std::shared_ptr<const VectorStore> vectors_;
    hnswlib::InnerProductSpace space_;
    hnswlib::HierarchicalNSW<float> graph_;
    float min_fraction_;
};

}  // namespace

std::unique_ptr<DenseIndex> make_hnsw_index(std::shared_ptr<const VectorStore> vectors,
                                            const DenseOptions& options) {
    return std::make_unique<HnswIndex>(std::move(vectors), options);
}

}  // namespace scout
