// build_context.hpp: what every phase of a snapshot build shares (the caches, the pool, the
// snapshot being filled, the commit's counters and progress), and the phases build_snapshot
// runs in order: collect the documents, lay out BM25, build the dense side, name the tools.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"

#include "snapshot/document_cache.hpp"
#include "snapshot/embedding_cache.hpp"
#include "snapshot/snapshot.hpp"
#include "snapshot/snapshot_builder.hpp"  // CommitInfo, ProgressCallback
#include "snapshot/staged_catalog.hpp"
#include "util/thread_pool.hpp"

namespace scout::detail {

/// One build in progress. The references outlive it (build_snapshot's locals and arguments).
struct BuildContext {
    const CatalogOptions& options;
    DocumentCache& documents;
    EmbeddingCache& cache;
    ThreadPool& pool;
    Snapshot& snap;  ///< the snapshot being filled, unseen by readers until the build returns
    /// The last published snapshot (may be null): its dense index may be shared or patched.
    const Snapshot* previous;
    /// `previous` when it has the same servers and tool names (its records and names are
    /// copied, its BM25 postings patched); null otherwise.
    const Snapshot* reuse;
    CommitInfo& info;  ///< counters the phases add to (rendered, embedded, dense reuse)
    const ProgressCallback& progress;

    /// Tells `progress` (when set) how far `phase` is.
    void report(std::string_view phase, std::size_t done, std::size_t total) const {
        if (progress) {
            progress(CommitProgress{phase, done, total});
        }
    }
};

/// What the pass over the ACTIVE servers' tools collects besides the snapshot's records.
struct Collected {
    std::vector<Bm25DocumentTerms> terms;  ///< ToolId order
    std::vector<CachedDocument*> docs;     ///< ToolId order
    std::vector<std::uint64_t> doc_keys;   ///< DocumentCache keys, ToolId order
};

/// Documents phase (collect_tools.cpp): records every tool of the ACTIVE servers of `staged` in
/// ToolId order (servers by name, tools by name) into ctx.snap and collects its cached
/// document, rendering the missing ones on the pool. With ctx.reuse its server table is shared,
/// its tool records copied and only their views re-pointed, and the servers it shares unedited
/// take their documents from the build of ctx.reuse when the cache remembers it.
[[nodiscard]] Collected collect_tools(const BuildContext& ctx, const StagedCatalog& staged);

/// BM25 phase (build_bm25.cpp): the BM25 index of the collected documents: ctx.reuse's,
/// patched, when it was built from the documents the cache remembers and few of them changed;
/// laid out in full otherwise (and always after the vocabulary was compacted or the index was
/// read from a file).
[[nodiscard]] Bm25Index layout_bm25(const BuildContext& ctx, const Collected& collected);

/// Drops the document cache when most of its vocabulary is dead, so the next build interns only
/// live terms.
void compact_vocabulary(const Bm25Index& bm25, DocumentCache& documents);

/// The catalog words for neighbour expansion: the unstemmed index terms of every indexed
/// document of `bm25`, each with the index terms it stands for.
[[nodiscard]] std::shared_ptr<const WordNeighbours> build_neighbours(
    const Analyzer& index_analyzer,
    const AnalyzerOptions& analyzer_options,
    std::shared_ptr<const WordVectors> vectors,
    const Bm25Index& bm25);

/// Dense phase (build_dense.cpp): fills the dense side of ctx.snap (or its dense_error) from
/// the collected documents, sharing or patching ctx.previous->dense when possible.
void build_dense(const BuildContext& ctx, Embedder& embedder, const Collected& collected);

}  // namespace scout::detail
