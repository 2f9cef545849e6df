// http_transport.hpp: the gateway's Streamable HTTP server transport (MCP 2025-11-25) on one
// endpoint, /mcp: POST carries one JSON-RPC message (answered with JSON, or SSE when the client
// accepts only that; 202 for notifications and responses), GET opens the session's event stream
// (tools/list_changed), DELETE ends a session. Sessions are named by Mcp-Session-Id and bound to
// the caller that opened them. /metrics serves Prometheus text. Callers authenticate with bearer
// tokens (AuthTable) and each gets its own scope; without an auth table only loopback binds are
// allowed. Every wait is bounded: body size, read/write timeouts, connections, sessions, streams.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "scout/status.hpp"

#include "auth.hpp"
#include "gateway.hpp"
#include "http_rules.hpp"

namespace scout::gateway {

struct HttpLimits {
    std::size_t max_body_bytes = 4u << 20;  ///< a larger POST gets 413
    /// Connections served at once (one thread each; a request waits on its backend there).
    std::size_t max_connections = 64;
    /// Accepted connections waiting for a thread; beyond it a connection is answered 503.
    std::size_t queued_connections = 256;
    std::chrono::seconds read_timeout{10};   ///< headers and body of one request
    std::chrono::seconds write_timeout{10};  ///< a client that stops reading is dropped after it
    std::chrono::seconds keep_alive{5};      ///< an idle keep-alive connection is closed after it
    std::size_t max_sessions = 1024;         ///< beyond it the least recently used one is ended
    std::chrono::minutes session_idle{60};   ///< a session unused this long is ended
    std::size_t max_streams = 16;            ///< GET event streams open at once
    std::chrono::seconds stream_ping{15};    ///< an SSE comment keeps idle streams alive
};

struct HttpOptions {
    ListenAddress address{"127.0.0.1", 8808};
    /// Origins besides loopback ones that browsers may call from ("https://app.example.com").
    std::vector<std::string> allowed_origins;
    /// Callers and their scopes; null: no authentication, loopback binds only.
    std::shared_ptr<const AuthTable> auth;
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
    /// Serves until stop(). Call once, after bind().
    void serve();
    /// Ends event streams, cancels calls in flight and stops serving. Idempotent.
    void stop();

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace scout::gateway
