// config.hpp: the gateway's backend list, in the Claude Desktop format:
// {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}, or for a remote
// Streamable HTTP server {"url": "http://host/mcp", "headers": {"Authorization": "..."}}. Optional
// keys per server extend it: "environment" (a label such as "prod" or "dev") and "disabled"; "pin":
// true lists all of a server's tools in tools/list, and a top-level "pinned": ["server/tool", ...]
// lists single tools (next to the two meta-tools; they stay searchable).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backend_session.hpp"
#include "gateway.hpp"

namespace scout::gateway {

struct GatewayConfig {
    std::vector<BackendSpec> backends;
    PinnedTools pinned;
    /// The "embedder" section as compact JSON ("" without one): a reload compares it, since the
    /// running embedder cannot change without a restart.
    std::string embedder_json;
};

/// Parses config text. invalid_argument naming the offending entry.
[[nodiscard]] Result<GatewayConfig> parse_gateway_config(std::string_view json_text);
/// Reads and parses a config file (errors start with the path).
[[nodiscard]] Result<GatewayConfig> load_gateway_config(const std::string& path);
/// The backends alone.
[[nodiscard]] Result<std::vector<BackendSpec>> parse_config(std::string_view json_text);
[[nodiscard]] Result<std::vector<BackendSpec>> load_config(const std::string& path);

}  // namespace scout::gateway
