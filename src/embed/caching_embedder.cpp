// caching_embedder.cpp: see caching_embedder.hpp.
#include "scout/caching_embedder.hpp"

#include <algorithm>

namespace scout {

CachingEmbedder::CachingEmbedder(std::shared_ptr<Embedder> inner, std::size_t capacity)
    : inner_(std::move(inner)), capacity_(capacity) {}

Result<std::vector<float>> CachingEmbedder::embed(std::span<const std::string> texts) {
    const std::size_t dim = inner_->dim();
    // Keys carry the model id: after the inner embedder is refitted, old vectors never match.
    const std::string prefix = inner_->model_id() + '\0';
    std::vector<float> out(texts.size() * dim);
    std::vector<std::size_t> missing;
    {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            auto it = entries_.find(prefix + texts[i]);
            if (it == entries_.end() || it->second.vector.size() != dim) {
                missing.push_back(i);
                continue;
            }
            order_.splice(order_.begin(), order_, it->second.position);
            std::copy(it->second.vector.begin(), it->second.vector.end(),
                      out.begin() + static_cast<std::ptrdiff_t>(i * dim));
            ++hits_;
        }
        misses_ += missing.size();
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
    std::lock_guard lock(mutex_);
    for (std::size_t j = 0; j < missing.size(); ++j) {
        const auto first = fresh->begin() + static_cast<std::ptrdiff_t>(j * dim);
        std::copy(first, first + static_cast<std::ptrdiff_t>(dim), out.begin() + static_cast<std::ptrdiff_t>(missing[j] * dim));
        if (capacity_ == 0) {
            continue;
        }
        const std::string key = prefix + batch[j];
        auto it = entries_.find(key);
        if (it != entries_.end()) {
            it->second.vector.assign(first, first + static_cast<std::ptrdiff_t>(dim));
            order_.splice(order_.begin(), order_, it->second.position);
            continue;
        }
        order_.push_front(key);
        entries_.emplace(key, Entry{std::vector<float>(first, first + static_cast<std::ptrdiff_t>(dim)), order_.begin()});
        if (entries_.size() > capacity_) {
            entries_.erase(order_.back());
            order_.pop_back();
        }
    }
    return out;
}

void CachingEmbedder::fit(std::span<const std::string> corpus) {
    const std::string before = inner_->model_id();
    inner_->fit(corpus);
    if (inner_->model_id() != before) {
        std::lock_guard lock(mutex_);
        entries_.clear();
        order_.clear();
    }
}

std::size_t CachingEmbedder::hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
}

std::size_t CachingEmbedder::misses() const {
    std::lock_guard lock(mutex_);
    return misses_;
}

std::size_t CachingEmbedder::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

}  // namespace scout
