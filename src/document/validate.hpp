// validate.hpp: input checks at the API boundary, so nothing malformed reaches the staged state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scout/status.hpp"
#include "scout/types.hpp"

#include "document/catalog_view.hpp"

namespace scout::detail {

/// Checks names, sizes, UTF-8, duplicate tool names and that every schema renders as a document.
/// With `parameters`, the rendered parameters field of each tool that has an input schema
/// (nullopt for the others), in the order of server.tools, for the commit to reuse.
[[nodiscard]] Status validate_server(const ServerSpec& server,
                                     std::vector<std::optional<std::string>>* parameters = nullptr);
/// With `parameters`, the tool's rendered parameters field when it has an input schema.
[[nodiscard]] Status validate_tool(const ServerSpec& server,
                                   const ToolSpec& tool,
                                   std::optional<std::string>* parameters = nullptr);

/// validate_server's checks of a stored server and its tools (an index file's), except that
/// schemas and annotations are checked to be JSON objects (is_json_object) but not rendered:
/// the file's writer validated them, and this keeps a damaged or forged file from putting what
/// upsert refuses into a snapshot at a fraction of the cost. Tool names must be in strictly
/// increasing (byte-wise) order.
[[nodiscard]] Status validate_stored_server(const CatalogView& catalog, const ServerView& server);

}  // namespace scout::detail
