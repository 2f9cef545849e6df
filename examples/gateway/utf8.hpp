// utf8.hpp: the UTF-8 check of header values the gateway decodes itself (MCP's base64 form of
// non-ASCII header values), which must be text before they are compared with a message's.
#pragma once

#include <string_view>

namespace scout::gateway::detail {

/// True when `text` is well-formed UTF-8: no stray continuation bytes, no overlong forms, no
/// surrogates, nothing above U+10FFFF.
[[nodiscard]] bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace scout::gateway::detail
