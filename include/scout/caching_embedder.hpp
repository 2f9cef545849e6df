// caching_embedder.hpp: a bounded LRU cache of embeddings by text in front of another
// embedder, so repeated queries (common with agents retrying a search) skip the model.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scout/embedder.hpp"

namespace scout {

/// Thread-safe: the cache is guarded by a mutex that is never held while the inner embedder
/// runs, so concurrent misses proceed in parallel (and may both call the model). Failures of the
/// inner embedder are returned as they are and never cached.
class CachingEmbedder final : public Embedder {
public:
    /// `inner` must not be null. capacity 0 disables caching.
    explicit CachingEmbedder(std::shared_ptr<Embedder> inner, std::size_t capacity = 1024);

    [[nodiscard]] std::string model_id() const override { return inner_->model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_->dim(); }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Forwards to the inner embedder and empties the cache when its model id changes.
    void fit(std::span<const std::string> corpus) override;

    [[nodiscard]] std::size_t hits() const;
    [[nodiscard]] std::size_t misses() const;
    [[nodiscard]] std::size_t size() const;

private:
    using Order = std::list<std::string>;  // most recently used first
    struct Entry {
        std::vector<float> vector;
        Order::iterator position;
    };

    std::shared_ptr<Embedder> inner_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    Order order_;
    std::unordered_map<std::string, Entry> entries_;
    std::size_t hits_ = 0;
    std::size_t misses_ = 0;
};

}  // namespace scout
