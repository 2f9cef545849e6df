// embedding_cache.cpp: see embedding_cache.hpp.
#include "snapshot/embedding_cache.hpp"

#include "util/hash.hpp"

namespace scout::detail {

std::uint64_t EmbeddingCache::key(const std::string& model_id, const std::string& text) {
    return mix64(fnv1a(text, fnv1a(std::string_view("\0", 1), fnv1a(model_id))));
}

const std::vector<float>* EmbeddingCache::find(std::uint64_t key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
}

void EmbeddingCache::put(std::uint64_t key, std::vector<float> vec) {
    entries_[key] = std::move(vec);
}

void EmbeddingCache::retain(const std::vector<std::uint64_t>& live) {
    std::unordered_map<std::uint64_t, std::vector<float>> kept;
    kept.reserve(live.size());
    for (std::uint64_t k : live) {
        if (auto it = entries_.find(k); it != entries_.end()) {
            kept.emplace(k, std::move(it->second));
        }
    }
    entries_ = std::move(kept);
}

}  // namespace scout::detail
