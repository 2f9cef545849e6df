// internal.hpp: helpers the meta-tool sources share (template rendering, JSON shapes of hits,
// scope checks). Private to src/mcp.
#pragma once

#include <string>
#include <string_view>

#include "scout/mcp/meta_tools.hpp"

namespace scout::mcp::detail {

/// Values of the template placeholders for one snapshot and connector.
struct TemplateValues {
    std::string environment;
    std::string environment_note;
    std::size_t tool_count = 0;
    std::size_t server_count = 0;
};

/// Replaces every {placeholder} of `text`; unknown placeholders are left as they are.
[[nodiscard]] std::string render(std::string_view text, const TemplateValues& values);

/// Parses JSON object text; `{}`-like fallback (`fallback`) when empty or malformed.
[[nodiscard]] Json parse_object(const std::string& text, Json fallback);

/// {"name", "server", "tool", "description", "inputSchema", "annotations"} of one hit.
[[nodiscard]] Json match_json(const Hit& hit);

/// True when (server, tool) is indexed and allowed by the scope fields of `options`.
[[nodiscard]] bool in_scope(const Searcher& searcher,
                            const SearchOptions& options,
                            const ToolKey& key);

}  // namespace scout::mcp::detail
