// meta_tools.hpp: the MCP definitions of the two meta-tools (tool_search, execute_tool) as a
// client sees them in tools/list, for the token benchmark. A plain, self-contained rendition:
// the benchmark only needs their size.
#pragma once

#include <string>

namespace scout::bench {

/// {"tools": [tool_search, execute_tool]} as compact JSON.
[[nodiscard]] const std::string& meta_tools_list_json();

}  // namespace scout::bench
