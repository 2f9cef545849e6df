// document_cache.hpp: rendered and analyzed tool documents by content hash, so a commit only
// renders (JSON schema walk) and analyzes the tools whose server or tool fields changed.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "scout/options.hpp"
#include "scout/types.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/tool_action.hpp"

namespace scout::detail {

/// One tool document, ready to index: its distinct analyzed terms with their field-weighted
/// frequencies (in first-occurrence order; one Bm25Index::Builder::add per term instead of one
/// per occurrence) and the dense text.
struct CachedDocument {
    std::vector<std::pair<std::string, float>> weighted_terms;
    std::string text;
    ToolAction action = ToolAction::none;  ///< read off the tool's name
    std::uint64_t embed_key = 0;           ///< EmbeddingCache key for embed_model below
    std::uint64_t embed_model_hash = 0;    ///< 0: embed_key not computed yet
};

/// In-memory only (keys use std::hash, which need not be stable across builds). Not thread-safe:
/// owned by the writer and used under its lock. The analyzer and field weights must be the same
/// for every call (they are fixed per Catalog), since they are not part of the key.
class DocumentCache {
public:
    /// Content key of a tool as served by a server: every field that the document depends on.
    [[nodiscard]] static std::uint64_t key(const ServerSpec& server, const ToolSpec& tool) noexcept;

    /// The cached document of `key`, rendering and analyzing it on a miss; nullptr when the
    /// tool does not render (its schema is not a JSON object). `rendered` counts misses.
    [[nodiscard]] CachedDocument* get(std::uint64_t key,
                                      const ServerSpec& server,
                                      const ToolSpec& tool,
                                      const Analyzer& analyzer,
                                      const FieldWeights& weights,
                                      std::size_t& rendered);
    /// Drops every entry whose key is not in `live`.
    void retain(const std::vector<std::uint64_t>& live);
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

private:
    std::unordered_map<std::uint64_t, CachedDocument> entries_;
};

}  // namespace scout::detail
