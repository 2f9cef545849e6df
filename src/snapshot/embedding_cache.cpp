// embedding_cache.cpp: see embedding_cache.hpp.
#include "snapshot/embedding_cache.hpp"

#include <iterator>
#include <unordered_set>

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
    // Live keys may repeat (equal texts), so this only bounds the dead entries loosely: a few
    // replaced vectors wait for the next sweep instead of costing every commit a pass over all.
    if (entries_.size() <= live.size() + live.size() / 8) {
        return;
    }
    // Erasing in place moves no vector.
    std::unordered_set<std::uint64_t> keep(live.begin(), live.end());
    for (auto it = entries_.begin(); it != entries_.end();) {
        it = keep.count(it->first) != 0 ? std::next(it) : entries_.erase(it);
    }
}

}  // namespace scout::detail
