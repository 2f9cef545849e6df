// catalog_loader.hpp: catalog JSON files and MCP tools/list results -> value types.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout {

/// Parses the catalog format {"servers": [{"name", "description", "category"?, "environment"?,
/// "status"?, "tools": [{"name", "title"?, "description"?, "inputSchema"?, "annotations"?}]}]}.
/// Errors name the offending entry ("servers[3].tools[7]: 'name' must be a non-empty string").
[[nodiscard]] Result<CatalogSpec> parse_catalog_json(std::string_view json);

/// Reads and parses a catalog file; errors start with the file name.
[[nodiscard]] Result<CatalogSpec> load_catalog_file(const std::filesystem::path& path);

/// Parses an MCP tools/list result ({"tools": [...]}), or a whole JSON-RPC response around it.
[[nodiscard]] Result<std::vector<ToolSpec>> parse_tools_list(std::string_view json);

/// Reads a whole file into a string (io_error / not_found naming the path).
[[nodiscard]] Result<std::string> read_text_file(const std::filesystem::path& path);

}  // namespace scout
