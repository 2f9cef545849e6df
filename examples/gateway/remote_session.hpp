// remote_session.hpp: the session with a remote MCP server over Streamable HTTP (a config entry
// with "url"). Each request is one POST, answered with JSON or an SSE stream that ends with the
// response. The first POST probes with server/discover (McpSession::open): a 2026-07-28 server is
// then spoken to statelessly (the `_meta` envelope and the MCP-Protocol-Version, Mcp-Method and
// Mcp-Name headers on every request, no session), any other answer falls back to initialize,
// whose Mcp-Session-Id and negotiated protocol version go with every later request. A request waits
// at most its timeout, and cancelling it (or close()) aborts the socket at once. A transport
// failure or a 404 (the server forgot the session) ends the session, so the supervising Backend
// reconnects with backoff as it restarts a crashed process. Server-initiated messages come on the
// POST streams and, in a 2025-11-25 session, on the GET stream opened after initialize
// (remote_stream.hpp), so list_changed arrives even when no request is under way; the server's
// requests there are answered with a POST (ping; sampling and elicitation relayed to the caller
// of the running call, call_relay.hpp; anything else is "method not found"). A modern server's
// list_changed comes only on subscription streams, which the gateway opens none of over HTTP.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "backend_session.hpp"
#include "remote_stream.hpp"

namespace httplib {
class Client;
}

namespace scout::gateway {

/// The parts of an http:// or https:// URL the client needs.
struct HttpUrl {
    std::string origin;  ///< "http://host:port"
    std::string path;    ///< "/mcp" (at least "/")
};
/// nullopt unless `url` is http:// or https:// with a host and no user info or fragment.
[[nodiscard]] std::optional<HttpUrl> parse_http_url(std::string_view url);

class RemoteSession : public McpSession {
public:
    /// Checks the URL; connects on the first request.
    [[nodiscard]] static Result<std::unique_ptr<RemoteSession>> start(
        const BackendSpec& spec, NotificationFn on_notification, ClosedFn on_closed);
    RemoteSession(const RemoteSession&) = delete;
    RemoteSession& operator=(const RemoteSession&) = delete;
    ~RemoteSession() override;

    [[nodiscard]] Status notify(const std::string& method, Json params) override;
    [[nodiscard]] bool closed() const noexcept override { return closed_.load(); }
    void close() override;
    [[nodiscard]] std::string where() const override { return url_.origin + url_.path; }

protected:
    [[nodiscard]] Result<Json> exchange(const std::string& method,
                                        Json params,
                                        const RequestOptions& options) override;
    /// Opens the GET stream.
    void on_initialized() override;

private:
    RemoteSession(const BackendSpec& spec, HttpUrl url, NotificationFn n, ClosedFn c);
    /// POSTs one message; the parsed response for `id` (or null for a notification).
    Result<Json> post(const Json& message,
                      const Json& id,
                      std::chrono::milliseconds timeout,
                      const std::shared_ptr<CancelToken>& cancel,
                      std::size_t* answer_bytes,
                      bool accept_pruned,
                      Json* error_out);
    void end(const std::string& why);
    /// One event of the GET stream (its thread).
    void handle_stream_message(const std::string& data);

    std::string name_;
    HttpUrl url_;
    std::map<std::string, std::string> headers_;
    NotificationFn on_notification_;
    ClosedFn on_closed_;
    std::atomic<bool> closed_{false};
    std::mutex mutex_;
    std::string session_id_;        ///< from the initialize response
    std::string protocol_version_;  ///< negotiated
    std::int64_t next_id_ = 1;
    std::set<httplib::Client*> in_flight_;  ///< aborted by close()
    std::once_flag close_once_;
    std::unique_ptr<RemoteStream> stream_;      ///< set once by on_initialized(), taken by close()
    std::size_t unusable_stream_messages_ = 0;  ///< the stream's thread only
};

}  // namespace scout::gateway
