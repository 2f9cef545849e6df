// http_transport.hpp: the gateway's Streamable HTTP server transport (MCP 2025-11-25) on one
// endpoint, /mcp: POST carries one JSON-RPC message (answered with JSON, or SSE when the client
// accepts only that; 202 for notifications and responses), GET opens the session's event stream
// (tools/list_changed), DELETE ends a session. Sessions are named by Mcp-Session-Id and bound to
// the caller that opened them. /metrics serves Prometheus text. Callers authenticate with bearer
// tokens (AuthTable) and each gets its own scope; without an auth table only loopback binds are
// allowed (and then only loopback Host names). The HTTP server underneath (http_server.hpp) bounds
// every connection before authentication; this layer shares sessions, streams and backend calls
// fairly between callers, and runs searches on threads that backend calls never occupy.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scout/status.hpp"

#include "auth.hpp"
#include "gateway.hpp"
#include "http_rules.hpp"
#include "http_server.hpp"

namespace scout::gateway {

/// Limits of the MCP endpoint, on top of the HTTP server's own (which hold before
/// authentication). "Caller" is the token's name, or the client's address without an auth file.
struct HttpLimits {
    HttpServerLimits server;          ///< connections, heads, bodies, deadlines
    std::size_t max_sessions = 1024;  ///< every caller's; beyond it a new one is refused (503)
    std::size_t max_sessions_per_caller = 128;  ///< beyond it the caller's least recently used ends
    std::chrono::minutes session_idle{60};      ///< a session unused this long is ended
    std::size_t max_streams = 256;              ///< event streams open at once (503 beyond)
    std::size_t max_streams_per_caller = 16;    ///< (429 beyond)
    /// Requests that may wait on a backend (tools/call of a backend tool, resources/*,
    /// prompts/*...) in flight at once per caller, and over every caller; 429 or 503 beyond.
    /// Searches and listings never wait behind them: they run on threads of their own.
    std::size_t max_calls_per_caller = 16;
    std::size_t max_calls = 256;
    std::size_t search_threads = 4;  ///< threads for searches, listings and session requests
    /// Requests per caller (token bucket) for callers without their own "rate" in the auth file,
    /// and per client address without an auth file; nullopt: none. 429 with Retry-After beyond.
    std::optional<RateLimit> rate;
};

struct HttpOptions {
    ListenAddress address{"127.0.0.1", 8808};
    /// Origins besides loopback ones that browsers may call from ("https://app.example.com").
    std::vector<std::string> allowed_origins;
    /// Callers and their scopes; null: no authentication, loopback binds only.
    std::shared_ptr<const AuthTable> auth;
    /// Serve HTTPS with this certificate chain and key (PEM files).
    std::optional<TlsFiles> tls;
    HttpLimits limits;
};

/// Thread-safe: stop() may be called from any thread while serve() runs.
class HttpTransport {
public:
    HttpTransport(Gateway& gateway, HttpOptions options);
    HttpTransport(const HttpTransport&) = delete;
    HttpTransport& operator=(const HttpTransport&) = delete;
    ~HttpTransport();

    /// Binds the listening socket. invalid_argument for a non-loopback address without an
    /// auth table; io_error when the address cannot be bound.
    [[nodiscard]] Status bind();
    /// The bound port (useful with port 0 in tests).
    [[nodiscard]] int port() const;
    /// Replaces the callers (tokens and scopes) at once, from any thread: requests that already
    /// authenticated finish with the old table, every later one (of an existing session too)
    /// authenticates with `auth` and gets its caller's new scope; the sessions of callers no
    /// longer in it end. invalid_argument when the transport was built without an auth table.
    [[nodiscard]] Status reload_auth(std::shared_ptr<const AuthTable> auth);
    /// Serves until stop(). Call once, after bind().
    void serve();
    /// Ends event streams, cancels calls in flight and stops serving. Idempotent.
    void stop();

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace scout::gateway
