// modern_protocol.hpp: the rules of the stateless MCP era (revision 2026-07-28) next to the
// legacy one (2025-11-25 and older, with initialize and sessions): how a message says which era
// it belongs to, what its per-request `_meta` envelope must hold, the shapes of the modern-only
// results and notifications, and the Streamable HTTP header checks. Pure functions, unit-tested
// and fuzzed apart from the gateway.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "json_rpc.hpp"

namespace scout::gateway::modern {

/// The stateless revision the gateway serves (and asks modern upstreams for).
inline constexpr const char* kProtocolVersion = "2026-07-28";

/// Reserved `_meta` keys of the modern era.
inline constexpr const char* kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kClientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kClientInfoKey = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kLogLevelKey = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kServerInfoKey = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kSubscriptionIdKey = "io.modelcontextprotocol/subscriptionId";

/// Error codes the modern revision assigns in the reserved -32020..-32099 range.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

/// How long a modern client may reuse a tools/list answer (list_changed on a subscription
/// tells it sooner).
inline constexpr int kToolListTtlMs = 30000;

/// A protocol error with the HTTP status the Streamable HTTP transport answers it with.
struct ProtocolError {
    int code = kInvalidParams;
    std::string message;
    Json data;  ///< null when the error has none
    int http_status = 400;
};

/// {"jsonrpc":"2.0","id":id,"error":{"code","message"[,"data"]}}
[[nodiscard]] Json error_response(const Json& id, const ProtocolError& error);

/// Whether a request or notification claims the modern era: its params._meta holds the
/// protocol-version or the client-capabilities key (of any type; check_envelope judges them).
[[nodiscard]] bool carries_envelope(const Json& message);

/// The protocol version a message's envelope names, or "" when it names none as a string.
[[nodiscard]] std::string envelope_version(const Json& message);

/// Checks a modern request's envelope: params an object, `_meta` an object with the protocol
/// version (a string, one the gateway serves) and the client capabilities (an object); client
/// info and log level, when present, of the right shape. nullopt when the request may be served.
[[nodiscard]] std::optional<ProtocolError> check_envelope(const Json& message);

/// Whether the gateway serves `method` to modern clients (ping, initialize and
/// logging/setLevel do not exist there).
[[nodiscard]] bool serves_method(std::string_view method);

/// Whether a result of `method` is cacheable (carries ttlMs and cacheScope).
[[nodiscard]] bool is_cacheable(std::string_view method);

/// Stamps a modern result: resultType "complete" (everything the gateway answers is final), and
/// for cacheable methods ttlMs and cacheScope ("private" when the answer depends on the
/// caller's scope) unless the result already has valid ones.
void finish_result(std::string_view method, Json& result, bool per_caller);

/// The server/discover result from the legacy initialize result's parts.
[[nodiscard]] Json discover_result(const Json& initialize_result, bool per_caller);

/// The filter a subscriptions/listen request asks for, reduced to what the gateway honours
/// (toolsListChanged); an error when `notifications` is not an object of booleans/arrays.
[[nodiscard]] std::optional<ProtocolError> check_listen(const Json& message, Json& honoured);
/// notifications/subscriptions/acknowledged for the subscription `id` (the listen request's id).
[[nodiscard]] Json acknowledged(const Json& id, const Json& honoured);
/// notifications/tools/list_changed tagged with the subscription id.
[[nodiscard]] Json tools_list_changed(const Json& id);
/// The result that ends a subscription gracefully.
[[nodiscard]] Json listen_closed(const Json& id);

/// The `_meta` envelope the gateway sends a modern upstream with every request.
[[nodiscard]] Json client_envelope();
/// Whether an upstream's answer to server/discover is a DiscoverResult naming kProtocolVersion.
[[nodiscard]] bool is_discover_result(const Json& result);
/// Whether a JSON-RPC error object is one only a modern server sends: -32022 whose
/// data.supported names a 2026-07-28-or-later revision, or -32021.
[[nodiscard]] bool is_modern_error(const Json& error);
/// A DiscoverResult seen as an initialize result (protocolVersion, capabilities, serverInfo,
/// instructions), so the rest of the gateway reads one shape.
[[nodiscard]] Json initialize_view(const Json& discover);

/// The value of an Mcp-Name (or Mcp-Param-*) header: plain visible ASCII as is, or
/// "=?base64?<base64 of UTF-8>?=" decoded. nullopt for bad base64 or invalid UTF-8.
[[nodiscard]] std::optional<std::string> decode_header_value(std::string_view value);
/// The header value decode_header_value reads back as `value`: plain when it is visible ASCII
/// without edge whitespace (and does not itself look encoded), "=?base64?...?=" otherwise.
[[nodiscard]] std::string encode_header_value(std::string_view value);

/// The standard headers of one modern POST, as received (nullopt when absent).
struct ModernHeaders {
    std::optional<std::string> protocol_version;  ///< MCP-Protocol-Version
    std::optional<std::string> method;            ///< Mcp-Method
    std::optional<std::string> name;              ///< Mcp-Name
};

/// Cross-checks the headers of a modern request against its body: MCP-Protocol-Version equal
/// to the envelope's version, Mcp-Method equal to the method, Mcp-Name (decoded) equal to
/// params.name (tools/call, prompts/get) or params.uri (resources/read). Notifications need
/// neither the headers nor an envelope, but a version they carry in both must agree.
/// Mismatches and missing headers: 400 with kHeaderMismatch.
[[nodiscard]] std::optional<ProtocolError> check_headers(const Json& message,
                                                         const ModernHeaders& headers);

/// The standard headers a modern request needs (what check_headers asks of it): the envelope's
/// version, the method, and for tools/call, prompts/get and resources/read the encoded name.
/// All absent for a message without an envelope (a legacy one, or a notification).
[[nodiscard]] ModernHeaders request_headers(const Json& message);

}  // namespace scout::gateway::modern
