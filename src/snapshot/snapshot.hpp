// snapshot.hpp: one immutable generation of the index. Everything a search reads lives here;
// once published it is never modified, only replaced, so readers need no locks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scout/options.hpp"
#include "scout/types.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/tool_action.hpp"
#include "dense/dense_index.hpp"
#include "dense/word_neighbours.hpp"
#include "document/enhanced_name.hpp"
#include "document/tools_by_name.hpp"
#include "snapshot/staged_catalog.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::detail {

struct ServerRecord {
    std::string name;
    std::string description;
    std::string category;
    std::string environment;
    ToolId first_tool = 0;  // the server's tools are the contiguous ids [first_tool, end_tool)
    ToolId end_tool = 0;
};

/// Every text is a view: into the snapshot's `source` or `viewed` (which it owns), its `names`
/// (the enhanced name) or a literal. A copy of every description and schema cost a 100k-tool
/// catalog about 43 MiB more, and copying owned names made a one-tool commit copy 100k strings.
struct ToolRecord {
    std::string_view server;
    std::string_view tool;
    std::string_view enhanced_name;
    std::string_view title;
    std::string_view description;
    std::string_view input_schema;
    std::string_view annotations;
    std::uint32_t server_index = 0;
    ToolAction action = ToolAction::none;  ///< read off the name at build, for action_boost
};

/// Names of the tools, a function of the staged servers and tool names only: shared by the
/// snapshots of one layout.
struct ToolNames {
    /// Enhanced names of every staged tool, whatever its server's status, so a server that
    /// leaves the index (crashed, DEGRADED) changes no other tool's name.
    EnhancedNames enhanced;
    std::vector<ToolId> tools;  // enhanced index -> ToolId, kNotIndexed for a tool not indexed
    ToolsByName by_plain;       // plain tool name -> indexed ids, in ToolId order
};

/// The ACTIVE servers, a function of the staged servers' metadata and tool names only: shared
/// by the snapshots of one layout.
struct ServerTable {
    std::vector<ServerRecord> records;                     // by name
    std::unordered_map<std::string, std::uint32_t> index;  // name -> position in records
};

struct Snapshot {
    std::uint64_t generation = 0;
    CatalogOptions options;
    Analyzer analyzer;
    Analyzer surface_analyzer;  // analyzer without stemming: words as word vectors know them
    std::shared_ptr<const ServerTable> servers = std::make_shared<const ServerTable>();
    std::vector<ToolRecord> tools;  // ToolId order: by (server, tool)
    std::shared_ptr<const ToolNames> names = std::make_shared<const ToolNames>();
    Bm25Index bm25;
    std::shared_ptr<const DenseIndex> dense;  // null: no embedder, or indexing failed
    std::vector<std::uint64_t> embed_keys;    // EmbeddingCache key of each tool's vector
    std::string dense_error;                  // why `dense` is null, when an embedder was set
    std::string embedder_model;
    std::shared_ptr<const WordNeighbours> neighbours;  // null: off, or no word vectors
    /// The full staged state this snapshot was built from (non-ACTIVE servers included), so
    /// save() writes exactly what readers see; `tools` view its texts, or `viewed`'s. Empty only
    /// for the empty initial snapshot.
    StagedSource source;
    /// What tool records view besides `source`: the catalog of the index file a snapshot was
    /// opened from, its texts where the file is mapped (later snapshots that keep its records
    /// keep it too). Null otherwise.
    std::shared_ptr<const void> viewed;
};

/// ToolNames::tools entry of a tool whose server is not ACTIVE.
inline constexpr ToolId kNotIndexed = static_cast<ToolId>(-1);

/// The indexed tool an enhanced name denotes. A name of a tool whose server is not ACTIVE, or one
/// that prefix resolution would take to such a server, resolves to nothing: never to another
/// server's tool.
[[nodiscard]] std::optional<ToolId> resolve_enhanced_name(const Snapshot& snap,
                                                          std::string_view name);

/// Approximate memory held by a snapshot, by part. O(tools).
[[nodiscard]] MemoryUsage memory_usage(const Snapshot& snap) noexcept;

}  // namespace scout::detail
