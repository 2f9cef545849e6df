// config.hpp: the gateway's backend list, in the Claude Desktop format:
// {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}, or for a remote
// Streamable HTTP server {"url": "http://host/mcp", "headers": {"Authorization": "..."}}. Optional
// keys per server extend it: "environment" (a label such as "prod" or "dev") and "disabled"; "pin":
// true lists all of a server's tools in tools/list, and a top-level "pinned": ["server/tool", ...]
// lists single tools (next to the two meta-tools; they stay searchable). "calibration": "FILE"
// names a fusion calibration file (`scout calibrate`), relative to the config file's folder.
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
    /// The "calibration" file ("" without one): as written by parse_gateway_config, resolved
    /// against the config file's folder by the loaders that know the file.
    std::string calibration_path;
};

/// Parses config text. invalid_argument naming the offending entry.
[[nodiscard]] Result<GatewayConfig> parse_gateway_config(std::string_view json_text);
/// A relative "calibration" path made relative to the folder of the config file at
/// `config_path` (as the auth file's jwks_file is to the auth file's); an absolute one is kept.
void resolve_config_paths(GatewayConfig& config, const std::string& config_path);
/// Reads and parses a config file (errors start with the path), its paths resolved.
[[nodiscard]] Result<GatewayConfig> load_gateway_config(const std::string& path);
/// The backends alone.
[[nodiscard]] Result<std::vector<BackendSpec>> parse_config(std::string_view json_text);
[[nodiscard]] Result<std::vector<BackendSpec>> load_config(const std::string& path);

}  // namespace scout::gateway
