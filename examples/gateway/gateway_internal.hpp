// gateway_internal.hpp: what the Gateway's own source files share and no other file uses.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "scout/events.hpp"

#include "gateway.hpp"

namespace scout::gateway::gateway_detail {

/// Pages of one backend's resources/list (or templates, prompts) the gateway follows.
inline constexpr int kMaxPassThroughPages = 20;

/// A backend's resource URI as the gateway's clients see it: "scout-gateway://<server>/<uri>".
[[nodiscard]] std::string prefixed_uri(const std::string& server, const std::string& uri);

/// The catalog's event sink that counts, on the searching thread, the fallbacks of a caller's
/// tool_search (gateway_tool_call.cpp), so /metrics leaves out the gateway's own searches.
[[nodiscard]] std::shared_ptr<EventSink> caller_fallback_sink();

}  // namespace scout::gateway::gateway_detail
