// config.hpp: the gateway's backend list, in the Claude Desktop format:
// {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}. Two optional keys
// per server extend it: "environment" (a label such as "prod" or "dev") and "disabled".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backend_session.hpp"

namespace scout::gateway {

/// Parses config text. invalid_argument naming the offending entry.
[[nodiscard]] Result<std::vector<BackendSpec>> parse_config(std::string_view json_text);
/// Reads and parses a config file (errors start with the path).
[[nodiscard]] Result<std::vector<BackendSpec>> load_config(const std::string& path);

}  // namespace scout::gateway
