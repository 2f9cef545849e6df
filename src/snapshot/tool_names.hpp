// tool_names.hpp: a snapshot's tool names (enhanced names over every catalog tool, the
// plain-name lookup of the indexed ones), from a staged catalog or an index file's catalog view.
#pragma once

#include <vector>

#include "document/catalog_view.hpp"
#include "document/enhanced_name.hpp"
#include "snapshot/snapshot.hpp"
#include "snapshot/staged_catalog.hpp"

namespace scout::detail {

/// Every tool of a catalog, whatever its server's status, in catalog order (servers by name,
/// tools by name): the names that make its enhanced name, and whether its server is ACTIVE.
/// The names view the catalog, which must outlive the list.
struct CatalogToolNames {
    std::vector<ToolKeyView> keys;
    std::vector<bool> active;  ///< one per key
};

[[nodiscard]] CatalogToolNames catalog_tool_names(const StagedCatalog& staged);
[[nodiscard]] CatalogToolNames catalog_tool_names(const CatalogView& catalog);

/// Sets `snap.names` to the names of `tools`' catalog, and each tool record's enhanced name:
/// enhanced names over every tool, whatever its server's status (so a server leaving the index
/// renames nothing), and the plain-name lookup of the indexed ones. `snap.tools` holds the
/// records of the ACTIVE tools in catalog order, viewing the same names as `tools.keys`.
void index_names(Snapshot& snap, const CatalogToolNames& tools);

}  // namespace scout::detail
