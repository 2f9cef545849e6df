// validate.hpp: input checks at the API boundary, so nothing malformed reaches the staged state.
#pragma once

#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// Checks names, sizes, UTF-8, duplicate tool names and that every schema renders as a document.
[[nodiscard]] Status validate_server(const ServerSpec& server);
[[nodiscard]] Status validate_tool(const ServerSpec& server, const ToolSpec& tool);

}  // namespace scout::detail
