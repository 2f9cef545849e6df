// snapshot_builder.hpp: staged catalog state -> a complete, immutable Snapshot.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "scout/catalog.hpp"
#include "snapshot/document_cache.hpp"
#include "snapshot/snapshot.hpp"
#include "snapshot/staged_catalog.hpp"

namespace scout::detail {

/// Document vectors by (model id, document text) hash: re-indexing an unchanged tool embeds nothing.
class EmbeddingCache {
public:
    [[nodiscard]] static std::uint64_t key(const std::string& model_id, const std::string& text);
    [[nodiscard]] const std::vector<float>* find(std::uint64_t key) const;
    void put(std::uint64_t key, std::vector<float> vec);
    /// Drops every entry whose key is not in `live`.
    void retain(const std::vector<std::uint64_t>& live);
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

private:
    std::unordered_map<std::uint64_t, std::vector<float>> entries_;
};

struct BuildOutput {
    std::shared_ptr<Snapshot> snapshot;
    CommitInfo info;
};

/// Builds generation `generation` from the ACTIVE servers of `staged`. An embedder failure does
/// not fail the build: the snapshot then has no dense index and says why.
[[nodiscard]] BuildOutput build_snapshot(const StagedCatalog& staged, const CatalogOptions& options,
                                         Embedder* embedder, EmbeddingCache& cache,
                                         std::uint64_t generation);

/// Same, reusing the writer's caches: unchanged tools are neither rendered, analyzed nor
/// embedded again, and when every document vector is the same as in `previous` its dense
/// index is shared instead of rebuilt.
[[nodiscard]] BuildOutput build_snapshot(const StagedCatalog& staged, const CatalogOptions& options,
                                         Embedder* embedder, EmbeddingCache& cache,
                                         DocumentCache& documents, const Snapshot* previous,
                                         std::uint64_t generation);

}  // namespace scout::detail
