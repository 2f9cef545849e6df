// direct_names.hpp: names a client uses without the gateway's server prefix. A model that found
// a tool with tool_search often calls it by its own name, and a client written against one
// server asks for its prompts and resources as that server names them. The gateway accepts such
// a bare name when exactly one server in the caller's scope offers it; these helpers word the
// refusals and match a concrete URI against a backend's resource templates.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scout::gateway {

/// Candidates named in one refusal; the rest are counted.
inline constexpr std::size_t kMaxCandidatesListed = 10;

/// "a/x, b/x" (qualified names), clipped to kMaxCandidatesListed with " and N more".
[[nodiscard]] std::string candidates_text(const std::vector<std::string>& qualified);

/// The refusal of a bare `name` (of a "tool", "prompt" or "resource") that `qualified` servers'
/// items share: it lists them and says how to name one.
[[nodiscard]] std::string ambiguous_name_message(std::string_view kind,
                                                 std::string_view name,
                                                 const std::vector<std::string>& qualified);

/// Whether `uri` is an expansion of the RFC 6570 template `uri_template` (each {expression}
/// stands for a non-empty run of characters up to the template's next literal text; a trailing
/// one for the rest). Enough to tell which backend's template a concrete URI came from.
[[nodiscard]] bool uri_template_matches(std::string_view uri_template, std::string_view uri);

}  // namespace scout::gateway
