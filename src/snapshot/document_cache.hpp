// document_cache.hpp: rendered and analyzed tool documents by content hash, so a commit only
// renders (JSON schema walk) and analyzes the tools whose server or tool fields changed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "scout/analyzer.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// One tool document, ready to index: the analyzed terms of each BM25 field (in the order of
/// FieldWeights: name, server, server_description, description, parameters) and the dense text.
struct CachedDocument {
    std::array<std::vector<std::string>, 5> field_terms;
    std::string text;
    std::uint64_t embed_key = 0;         ///< EmbeddingCache key for embed_model below
    std::uint64_t embed_model_hash = 0;  ///< 0: embed_key not computed yet
};

/// In-memory only (keys use std::hash, which need not be stable across builds). Not thread-safe:
/// owned by the writer and used under its lock.
class DocumentCache {
public:
    /// Content key of a tool as served by a server: every field that the document depends on.
    [[nodiscard]] static std::uint64_t key(const ServerSpec& server, const ToolSpec& tool) noexcept;

    /// The cached document of `key`, rendering and analyzing it on a miss; nullptr when the
    /// tool does not render (its schema is not a JSON object). `rendered` counts misses.
    [[nodiscard]] CachedDocument* get(std::uint64_t key, const ServerSpec& server, const ToolSpec& tool,
                                      const Analyzer& analyzer, std::size_t& rendered);
    /// Drops every entry whose key is not in `live`.
    void retain(const std::vector<std::uint64_t>& live);
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

private:
    std::unordered_map<std::uint64_t, CachedDocument> entries_;
};

}  // namespace scout::detail
