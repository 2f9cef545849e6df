// json_rpc.hpp: JSON-RPC 2.0 framing for MCP's stdio transport: one JSON message per line.
// Classifies an incoming line and builds responses and error objects.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace scout::gateway {

using Json = nlohmann::json;

/// JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
/// Implementation-defined server error: too many requests in flight.
inline constexpr int kServerBusy = -32000;

enum class MessageKind { request, notification, response, invalid, parse_error };

/// One classified line. For `invalid`, `error` says why and `id` is the request's id when it
/// had a usable one (else null), so the error response can still be correlated.
// nlohmann::json's default does not throw; the exception-escape check cannot see it.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Message {
    MessageKind kind = MessageKind::invalid;
    Json body;  ///< the parsed object (requests, notifications, responses)
    Json id;    ///< string or integer id; null when absent or unusable
    std::string method;
    std::string error;
    /// Parts of the line nested deeper than kMaxJsonDepth were left out. A request or
    /// notification is then `invalid`; a response keeps its kind, with the missing parts as
    /// placeholders (mcp::has_pruned) that must never be serialized.
    bool too_deep = false;
};

/// Parses and classifies one line, with nesting bounded by kMaxJsonDepth. Never throws.
[[nodiscard]] Message classify(std::string_view line);

/// {"jsonrpc":"2.0","id":id,"result":result}
[[nodiscard]] Json make_result(const Json& id, Json result);
/// {"jsonrpc":"2.0","id":id,"error":{"code","message"}}
[[nodiscard]] Json make_error(const Json& id, int code, std::string message);
/// {"jsonrpc":"2.0","method":method[,"params":params]}
[[nodiscard]] Json make_notification(std::string method, Json params = nullptr);
/// {"jsonrpc":"2.0","id":id,"method":method,"params":params}
[[nodiscard]] Json make_request(const Json& id, std::string method, Json params);

/// Compact one-line serialization; invalid UTF-8 in strings is replaced, never thrown on.
[[nodiscard]] std::string to_line(const Json& message);

}  // namespace scout::gateway
