// index_codec.hpp: a saved catalog <-> the sections of an index file (META, CATB, VECS, BM25...).
// Bytes only: the writer (catalog/) hands over an IndexImage of views and gets a StoredIndex back.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/options.hpp"
#include "scout/types.hpp"

#include "dense/dense_index.hpp"
#include "document/catalog_view.hpp"
#include "outcomes/outcome_prior.hpp"
#include "persist/catalog_binary.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::detail {

/// What encode_index writes; views into the writer's state, valid for the call.
struct IndexImage {
    std::uint64_t generation = 0;
    CatalogOptions options;
    std::vector<ServerImage> servers;  ///< every server, any status, in name order
    std::size_t indexed_tools = 0;     ///< tools of ACTIVE servers
    std::string model_id;              ///< embedder of `vectors`; empty when there are none
    std::size_t dim = 0;
    const VectorStore* vectors = nullptr;  ///< indexed_tools x dim unit rows, ToolId order
    // The built indexes, so opening rebuilds nothing (format 1.2; each may be absent).
    const Bm25Index* bm25 = nullptr;
    std::span<const std::uint64_t> embed_keys;  ///< the vector cache's key of each row
    std::string hnsw_graph;                     ///< DenseIndex::graph_bytes(); empty when flat
    std::string embedder_state;                 ///< Embedder::fitted_state() of model_id
    const OutcomePrior* outcomes = nullptr;     ///< recorded outcomes (OUTC); null or empty: none
};

/// Everything needed to rebuild a snapshot without re-embedding.
struct StoredIndex {
    IndexFileInfo info;
    CatalogOptions options;
    CatalogView catalog;  ///< every server with its status and tools, by name
    /// info.vectors x info.dim unit rows, ACTIVE tools in ToolId order; null without vectors.
    std::shared_ptr<VectorStore> vectors;
    // What format 1.2 adds; a file without them is rebuilt on open.
    std::unique_ptr<Bm25Index> bm25;          ///< null: no BM25 section
    std::vector<std::uint64_t> embed_keys;    ///< one per vector, or none
    std::shared_ptr<const DenseIndex> dense;  ///< from the HNSW graph, or flat; null: rebuild
    std::string embedder_state;               ///< Embedder::fitted_state() at save
    std::optional<OutcomePrior> outcomes;     ///< the OUTC section, when the file has one
};

/// The file image.
[[nodiscard]] std::string encode_index(const IndexImage& image);

/// Verifies and decodes a file image: container checks, then every section's invariants. The
/// catalog's texts, the vectors and the BM25 postings are read in place: they view `bytes`,
/// which `owner` keeps alive (null: the caller keeps `bytes` alive while it uses the result).
[[nodiscard]] Result<StoredIndex> decode_index(std::span<const std::uint8_t> bytes,
                                               std::shared_ptr<const void> owner = nullptr);

}  // namespace scout::detail
