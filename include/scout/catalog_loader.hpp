// catalog_loader.hpp: catalog JSON files and MCP tools/list results -> value types.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <vector>

#include "scout/export.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout {

/// Parses the catalog format {"servers": [{"name", "description", "category"?, "environment"?,
/// "status"?, "tools": [{"name", "title"?, "description"?, "inputSchema"?, "annotations"?}]}]}.
/// Errors name the offending entry ("servers[3].tools[7]: 'name' must be a non-empty string").
[[nodiscard]] SCOUT_API Result<CatalogSpec> parse_catalog_json(std::string_view json);

/// The largest catalog file load_catalog_file reads (256 MiB; a 40,000-tool catalog is about
/// 60 MB). Bigger files, and anything that is not a regular file (a FIFO, /dev/zero), are refused
/// before they are read.
inline constexpr std::size_t kMaxCatalogFileBytes = std::size_t{256} << 20U;

/// Reads and parses a catalog file; errors start with the file name.
[[nodiscard]] SCOUT_API Result<CatalogSpec> load_catalog_file(const std::filesystem::path& path);

/// Parses an MCP tools/list result ({"tools": [...]}), or a whole JSON-RPC response around it.
[[nodiscard]] SCOUT_API Result<std::vector<ToolSpec>> parse_tools_list(std::string_view json);

/// The checks Catalog::upsert_server and upsert_tool make of one tool of `server` (names, sizes,
/// UTF-8, a schema that renders as a document), without a catalog: a host indexing tools from a
/// source it does not trust (an MCP backend's tools/list) drops the tools this refuses instead
/// of having upsert_server refuse the whole server. invalid_argument, naming the server, the
/// tool and the field.
[[nodiscard]] SCOUT_API Status validate_tool(const ServerSpec& server, const ToolSpec& tool);

}  // namespace scout
