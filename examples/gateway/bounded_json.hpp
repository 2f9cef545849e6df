// bounded_json.hpp: every JSON text the gateway reads from outside (client and backend messages,
// its config, auth and embedder files, tool schemas) is parsed with scout::mcp's depth-bounded
// parser, under the names the gateway's sources use.
#pragma once

#include "scout/mcp/json_limits.hpp"

namespace scout::gateway::detail {

using mcp::has_pruned;
using mcp::kMaxJsonDepth;
using mcp::parse_json;
using mcp::parse_json_pruned;
using mcp::too_deep_message;

}  // namespace scout::gateway::detail
