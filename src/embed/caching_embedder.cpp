// caching_embedder.cpp: see caching_embedder.hpp.
#include <algorithm>
#include <list>
#include <mutex>
#include <unordered_map>

#include "scout/embedder.hpp"

namespace scout {

// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] CachingEmbedder::Cache {
    using Order = std::list<std::string>;  // most recently used first
    struct Entry {
        std::vector<float> vector;
        Order::iterator position;
    };

    mutable std::mutex mutex;  // guards everything below
    Order order;
    std::unordered_map<std::string, Entry> entries;
    std::size_t hits = 0;
    std::size_t misses = 0;
};

CachingEmbedder::CachingEmbedder(std::shared_ptr<Embedder> inner, std::size_t capacity)
    : inner_(std::move(inner)), capacity_(capacity), cache_(std::make_unique<Cache>()) {}

CachingEmbedder::~CachingEmbedder() = default;

Result<std::vector<float>> CachingEmbedder::embed(std::span<const std::string> texts) {
    const std::size_t dim = inner_->dim();
    // Keys carry the model id: after the inner embedder is refitted, old vectors never match.
    const std::string prefix = inner_->model_id() + '\0';
    std::vector<float> out(texts.size() * dim);
    std::vector<std::size_t> missing;
    {
        std::lock_guard lock(cache_->mutex);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            auto it = cache_->entries.find(prefix + texts[i]);
            if (it == cache_->entries.end() || it->second.vector.size() != dim) {
                missing.push_back(i);
                continue;
            }
            cache_->order.splice(cache_->order.begin(), cache_->order, it->second.position);
            std::copy(it->second.vector.begin(),
                      it->second.vector.end(),
                      out.begin() + static_cast<std::ptrdiff_t>(i * dim));
            ++cache_->hits;
        }
        cache_->misses += missing.size();
    }
    if (missing.empty()) {
        return out;
    }
    std::vector<std::string> batch;
    batch.reserve(missing.size());
    for (std::size_t i : missing) {
        batch.push_back(texts[i]);
    }
    auto fresh = inner_->embed(batch);
    if (!fresh) {
        return fresh.status();
    }
    if (fresh->size() != batch.size() * dim) {
        return fresh;  // the caller reports the size mismatch; nothing wrong is cached
    }
    std::lock_guard lock(cache_->mutex);
    for (std::size_t j = 0; j < missing.size(); ++j) {
        const auto first = fresh->begin() + static_cast<std::ptrdiff_t>(j * dim);
        std::copy(first,
                  first + static_cast<std::ptrdiff_t>(dim),
                  out.begin() + static_cast<std::ptrdiff_t>(missing[j] * dim));
        if (capacity_ == 0) {
            continue;
        }
        const std::string key = prefix + batch[j];
        auto it = cache_->entries.find(key);
        if (it != cache_->entries.end()) {
            it->second.vector.assign(first, first + static_cast<std::ptrdiff_t>(dim));
            cache_->order.splice(cache_->order.begin(), cache_->order, it->second.position);
            continue;
        }
        cache_->order.push_front(key);
        cache_->entries.emplace(
            key,
            Cache::Entry{std::vector<float>(first, first + static_cast<std::ptrdiff_t>(dim)),
                         cache_->order.begin()});
        if (cache_->entries.size() > capacity_) {
            cache_->entries.erase(cache_->order.back());
            cache_->order.pop_back();
        }
    }
    return out;
}

std::shared_ptr<const WordVectors> CachingEmbedder::word_vectors() const {
    return inner_->word_vectors();
}

void CachingEmbedder::fit(std::span<const std::string> corpus) {
    const std::string before = inner_->model_id();
    inner_->fit(corpus);
    if (inner_->model_id() != before) {
        std::lock_guard lock(cache_->mutex);
        cache_->entries.clear();
        cache_->order.clear();
    }
}

bool CachingEmbedder::restore_fitted_state(std::string_view state) {
    const std::string before = inner_->model_id();
    const bool restored = inner_->restore_fitted_state(state);
    if (inner_->model_id() != before) {
        std::lock_guard lock(cache_->mutex);
        cache_->entries.clear();
        cache_->order.clear();
    }
    return restored;
}

std::size_t CachingEmbedder::hits() const {
    std::lock_guard lock(cache_->mutex);
    return cache_->hits;
}

std::size_t CachingEmbedder::misses() const {
    std::lock_guard lock(cache_->mutex);
    return cache_->misses;
}

std::size_t CachingEmbedder::size() const {
    std::lock_guard lock(cache_->mutex);
    return cache_->entries.size();
}

}  // namespace scout
