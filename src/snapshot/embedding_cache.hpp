// embedding_cache.hpp: document vectors by (model id, document text) hash, kept by the writer
// across commits, so re-indexing an unchanged tool embeds nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace scout::detail {

/// Not thread-safe: owned by the writer and used under its lock.
class EmbeddingCache {
public:
    [[nodiscard]] static std::uint64_t key(const std::string& model_id, const std::string& text);
    [[nodiscard]] const std::vector<float>* find(std::uint64_t key) const;
    void put(std::uint64_t key, std::vector<float> vec);
    /// Drops every entry whose key is not in `live` once the cache holds more than an eighth
    /// more entries than `live` has keys (until then they are only memory).
    void retain(const std::vector<std::uint64_t>& live);
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

private:
    std::unordered_map<std::uint64_t, std::vector<float>> entries_;
};

}  // namespace scout::detail
