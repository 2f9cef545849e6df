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
#include "snapshot/embedding_cache.hpp"
#include "snapshot/snapshot.hpp"
#include "snapshot/staged_catalog.hpp"

namespace scout::detail {

struct BuildOutput {
    std::shared_ptr<Snapshot> snapshot;
    CommitInfo info;
};

/// Builds generation `generation` from the ACTIVE servers of `staged`, which becomes the
/// snapshot's source. An embedder failure does not fail the build: the snapshot then has no dense
/// index and says why.
[[nodiscard]] BuildOutput build_snapshot(std::shared_ptr<const StagedCatalog> staged,
                                         const CatalogOptions& options,
                                         Embedder* embedder,
                                         EmbeddingCache& cache,
                                         std::uint64_t generation);

/// Same, reusing the writer's caches: unchanged tools are neither rendered, analyzed nor
/// embedded again, and the BM25 postings are laid out from their interned terms. When `previous`
/// has the same servers and tool names, its tool records and names are copied; when every
/// document vector is the same as in `previous` its dense index is shared instead of rebuilt.
/// `progress` (may be empty) hears each phase.
[[nodiscard]] BuildOutput build_snapshot(std::shared_ptr<const StagedCatalog> staged,
                                         const CatalogOptions& options,
                                         Embedder* embedder,
                                         EmbeddingCache& cache,
                                         DocumentCache& documents,
                                         const Snapshot* previous,
                                         std::uint64_t generation,
                                         const ProgressCallback& progress = {});

/// The snapshot of an opened index file: records, names and maps from `catalog`, whose texts
/// the records view (its source is staged from it when first asked for), with the stored BM25
/// index and (when `dense` is set) dense index; renders, analyzes and embeds nothing.
[[nodiscard]] std::shared_ptr<Snapshot> assemble_snapshot(
    std::shared_ptr<const CatalogView> catalog,
    const CatalogOptions& options,
    Bm25Index bm25,
    std::shared_ptr<const DenseIndex> dense,
    std::vector<std::uint64_t> embed_keys,
    std::string embedder_model,
    std::uint64_t generation);

}  // namespace scout::detail
