// templates_file.hpp: the gateway's --templates file (the meta-tools' description templates),
// read as its other JSON files are: a syntax error gives the line, an unknown key or a value of
// the wrong type names the key and the line it is on, and every error starts with the path.
#pragma once

#include <string>
#include <string_view>

#include "scout/mcp/meta_tools.hpp"
#include "scout/status.hpp"

namespace scout::gateway {

/// Parses templates text (an object of template names to strings). invalid_argument naming the
/// key at fault and its line, or the line of a syntax error.
[[nodiscard]] Result<mcp::DescriptionTemplates> parse_templates_file(std::string_view text);
/// Reads `path` (a regular file of at most kMaxConfigFileBytes) and parses it; errors start
/// with the path.
[[nodiscard]] Result<mcp::DescriptionTemplates> load_templates_file(const std::string& path);

}  // namespace scout::gateway
