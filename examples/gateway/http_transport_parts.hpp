// http_transport_parts.hpp: the Streamable HTTP transport's small pure pieces: its JSON-RPC
// answers over HTTP, session and request ids, a caller's connector and the listener's series.
#pragma once

#include <string>

#include "scout/mcp/meta_tools.hpp"

#include "auth.hpp"
#include "gateway.hpp"
#include "http_server.hpp"
#include "json_rpc.hpp"

namespace scout::gateway::transport_detail {

inline constexpr const char* kJson = "application/json";
inline constexpr const char* kEventStream = "text/event-stream";

/// A new session's id: 128 random bits in hex.
[[nodiscard]] std::string random_session_id();
/// A request's id: 64 random bits in hex, for X-Request-Id and the log lines about it.
[[nodiscard]] std::string random_request_id();
/// Whether `v` is a protocol version the gateway speaks (kSupportedProtocolVersions).
[[nodiscard]] bool supported_version(const std::string& v);
/// A JSON-RPC error of `code` as an HTTP answer of `status`.
[[nodiscard]] HttpResponse json_error(int status, const Json& id, int code, std::string message);
/// A kServerBusy error of `status` with Retry-After: 1.
[[nodiscard]] HttpResponse busy(int status, const Json& id, std::string message);
/// A JSON-RPC answer as JSON, or as one event of an event stream.
[[nodiscard]] HttpResponse json_answer(const Json& answer, bool event_stream);
/// An answer with no body.
[[nodiscard]] HttpResponse status_only(int status);
/// A rate for a message: "0.5", "10".
[[nodiscard]] std::string rate_text(double per_second);
/// `line` as one "message" event of an event stream.
[[nodiscard]] std::string sse_event(const std::string& line);
/// The gateway's connector narrowed to `caller`'s scope (servers both allow, its environment).
[[nodiscard]] mcp::Connector caller_connector(const mcp::Connector& base,
                                              const CallerScope& caller);
/// The listener's own series (aggregates: they name no server or tool).
[[nodiscard]] std::string listener_metrics(const HttpServerCounts& c);
/// Whether answering `m` may wait on a backend: anything but the gateway's own methods and
/// tool_search. Such requests run on the calls pool, under the caller's share of it.
[[nodiscard]] bool may_wait_on_backend(const Message& m);

}  // namespace scout::gateway::transport_detail
