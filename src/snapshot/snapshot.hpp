// snapshot.hpp: one immutable generation of the index. Everything a search reads lives here;
// once published it is never modified, only replaced, so readers need no locks.
#pragma once

#include "analysis/tool_action.hpp"
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dense/dense_index.hpp"
#include "expansion/neighbour_expander.hpp"
#include "scout/analyzer.hpp"
#include "scout/enhanced_name.hpp"
#include "scout/options.hpp"
#include "scout/types.hpp"
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

struct ToolRecord {
    std::string server;
    std::string tool;
    std::string enhanced_name;
    std::string title;
    std::string description;
    std::string input_schema;
    std::string annotations;
    std::uint32_t server_index = 0;
    ToolAction action = ToolAction::none;  ///< read off the name at build, for action_boost
};

struct Snapshot {
    std::uint64_t generation = 0;
    CatalogOptions options;
    Analyzer analyzer;
    Analyzer surface_analyzer;  // analyzer without stemming: words as word vectors know them
    std::vector<ServerRecord> servers;  // ACTIVE servers only, by name
    std::vector<ToolRecord> tools;      // ToolId order: by (server, tool)
    std::unordered_map<std::string, std::uint32_t> server_index;
    EnhancedNames names;
    std::unordered_map<std::string, std::vector<ToolId>> tools_by_name;  // plain tool name -> ids
    Bm25Index bm25;
    std::shared_ptr<const DenseIndex> dense;  // null: no embedder, or indexing failed
    std::vector<std::uint64_t> embed_keys;    // EmbeddingCache key of each tool's vector
    std::string dense_error;            // why `dense` is null, when an embedder was set
    std::string embedder_model;
    std::shared_ptr<const NeighbourExpander> neighbours;  // null: off, or no word vectors
    /// The full staged state this snapshot was built from (non-ACTIVE servers included), so
    /// save() writes exactly what readers see. Null only for the empty initial snapshot.
    std::shared_ptr<const StagedCatalog> source;
};

}  // namespace scout::detail
