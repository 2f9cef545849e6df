// json_limits.hpp: JSON parsing with a bound on nesting depth. nlohmann's parser is iterative,
// but dumping, comparing and copying a value recurse once per level, so a value nested ~100000
// deep (200 KB of '[') overflows the stack later, far from where it came in. Text from outside
// (MCP peers, config and catalog files) is parsed here instead, and refused or pruned at the
// limit while it is read.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "scout/status.hpp"

namespace scout::detail {

/// Deepest nesting of arrays and objects accepted from outside (the outermost container is
/// level 1). Real MCP messages and JSON Schemas stay far below it (a tools/list answer puts a
/// tool's inputSchema at level 5); recursion over 256 levels costs a few tens of KB of stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Parses `text`. invalid_argument for malformed JSON (the parser's message, clipped) or for
/// nesting deeper than `max_depth` ("nested deeper than N levels"). Never throws.
[[nodiscard]] Result<nlohmann::json> parse_json(std::string_view text,
                                                std::size_t max_depth = kMaxJsonDepth);

/// Hears how far a parse has read: bytes done of the text's total, every kProgressStepBytes and
/// once at the end (of a successful parse).
using ParseProgress = std::function<void(std::size_t done, std::size_t total)>;
inline constexpr std::size_t kProgressStepBytes = std::size_t{1} << 20;
[[nodiscard]] Result<nlohmann::json> parse_json(std::string_view text,
                                                std::size_t max_depth,
                                                const ParseProgress& progress);

/// A parse that keeps going past the depth limit: every value that would sit deeper than
/// `max_depth` is replaced by a discarded placeholder (is_discarded()), and `pruned` counts
/// them. Lets a caller refuse just the part that is too deep (one tool of a listing) and keep
/// the rest. The placeholders must not be dumped: check has_pruned() first.
struct PrunedJson {
    nlohmann::json value;
    std::size_t pruned = 0;
};
[[nodiscard]] Result<PrunedJson> parse_json_pruned(std::string_view text,
                                                   std::size_t max_depth = kMaxJsonDepth);

/// True when `value` holds a placeholder left by parse_json_pruned.
[[nodiscard]] bool has_pruned(const nlohmann::json& value);

/// The standard message for over-deep JSON.
[[nodiscard]] std::string too_deep_message(std::size_t max_depth = kMaxJsonDepth);

}  // namespace scout::detail
