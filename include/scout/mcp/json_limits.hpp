// json_limits.hpp: JSON from MCP peers, parsed with a bound on nesting depth. nlohmann's parser
// is iterative, but dumping, comparing and copying a value recurse once per level, so a message
// nested ~100000 deep (200 KB of '[') overflows the stack later, far from where it came in. A
// host parses what clients and backends send with these and refuses, or prunes, at the limit
// while the text is read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "scout/status.hpp"

namespace scout::mcp {

/// Deepest nesting of arrays and objects accepted (the outermost container is level 1). Real
/// MCP messages and JSON Schemas stay far below it (a tools/list answer puts a tool's
/// inputSchema at level 5); recursion over 256 levels costs a few tens of KB of stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Parses `text`. invalid_argument for malformed JSON (the parser's message, clipped) or for
/// nesting deeper than `max_depth` (too_deep_message). Never throws.
[[nodiscard]] Result<nlohmann::json> parse_json(std::string_view text,
                                                std::size_t max_depth = kMaxJsonDepth);

/// A parse that keeps going past the depth limit: every value that would sit deeper than
/// `max_depth` is replaced by a discarded placeholder (is_discarded()), and `pruned` counts
/// them. Lets a host refuse just the part that is too deep (one tool of a listing, the error of
/// one answer) and keep the rest. The placeholders must not be dumped: check has_pruned first.
struct PrunedJson {
    nlohmann::json value;
    std::size_t pruned = 0;
};
[[nodiscard]] Result<PrunedJson> parse_json_pruned(std::string_view text,
                                                   std::size_t max_depth = kMaxJsonDepth);

/// True when `value` is or holds a placeholder left by parse_json_pruned.
[[nodiscard]] bool has_pruned(const nlohmann::json& value);

/// The message of a refusal for depth: "JSON nested deeper than N levels".
[[nodiscard]] std::string too_deep_message(std::size_t max_depth = kMaxJsonDepth);

}  // namespace scout::mcp
