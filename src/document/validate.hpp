// validate.hpp: input checks at the API boundary, so nothing malformed reaches the staged state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scout/status.hpp"
#include "scout/types.hpp"

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

}  // namespace scout::detail
