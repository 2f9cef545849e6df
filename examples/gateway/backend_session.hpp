// backend_session.hpp: a JSON-RPC session with one running backend process. A reader thread
// matches responses to requests by id, answers the backend's own requests, and reports
// notifications and the end of the stream; a LineWriter sends, so no request ever blocks on a
// backend that stops reading. Every request has a deadline and can be cancelled; both tell the
// backend with notifications/cancelled.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "scout/status.hpp"

#include "call_relay.hpp"
#include "cancel_token.hpp"
#include "child_process.hpp"
#include "json_rpc.hpp"
#include "line_reader.hpp"
#include "line_writer.hpp"

namespace scout::gateway {

/// How a backend is started (one entry of the mcpServers config): a command run with stdio, or
/// the URL of a remote Streamable HTTP server.
struct BackendSpec {
    std::string name;
    std::string command;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string environment;  ///< optional label ("prod", "dev") for environment-aware routing
    std::string url;          ///< set for a remote server (then command is empty)
    std::map<std::string, std::string> headers;  ///< sent with every request to `url`

    /// Same name, process, label and remote: a reloaded config that keeps an entry equal keeps
    /// its backend running.
    [[nodiscard]] bool operator==(const BackendSpec&) const = default;
};

/// The version the gateway asks its backends for; they may answer with an older one.
inline constexpr const char* kClientProtocolVersion = "2025-11-25";

/// One request's limits.
struct RequestOptions {
    std::chrono::milliseconds timeout{30000};
    /// Cancelling it abandons the request (unavailable) and tells the backend.
    std::shared_ptr<CancelToken> cancel;
    /// Accept an answer with parts nested deeper than kMaxJsonDepth, left as placeholders
    /// (mcp::has_pruned); otherwise such an answer is an error.
    bool accept_pruned = false;
    /// Send notifications/cancelled when the request times out (never for initialize).
    bool cancel_on_timeout = true;
    /// When set, receives the size in bytes of the answer's line.
    std::size_t* answer_bytes = nullptr;
    /// When set, receives the JSON-RPC error object of an error answer.
    Json* error = nullptr;
};

/// The longest wait for a backend's answer to the server/discover probe; a legacy server that
/// ignores requests before initialize costs this much once per process start.
inline constexpr std::chrono::milliseconds kDiscoverProbeTimeout{5000};

using NotificationFn = std::function<void(const std::string& method, const Json& params)>;
using ClosedFn = std::function<void()>;

/// One MCP session with a backend, whatever carries it (a child's stdio, Streamable HTTP).
/// Thread-safe: request() may be called from many threads at once.
class McpSession {
public:
    McpSession() = default;
    McpSession(const McpSession&) = delete;
    McpSession& operator=(const McpSession&) = delete;
    virtual ~McpSession() = default;

    /// Sends a request and waits for its response: the "result" member, or an error
    /// (unavailable when the backend died, timed out or the call was cancelled,
    /// invalid_argument for a JSON-RPC error or an answer the gateway cannot use). With a
    /// modern (2026-07-28) backend, the request carries the per-request _meta envelope.
    [[nodiscard]] Result<Json> request(const std::string& method,
                                       Json params,
                                       const RequestOptions& options);
    [[nodiscard]] virtual Status notify(const std::string& method, Json params) = 0;
    [[nodiscard]] virtual bool closed() const noexcept = 0;
    /// Ends the session; pending requests fail with unavailable. Idempotent; safe from several
    /// threads (not from a callback).
    virtual void close() = 0;
    /// Where the session goes, for logs ("pid 123", "http://host/mcp").
    [[nodiscard]] virtual std::string where() const = 0;

    /// initialize + notifications/initialized. Returns the initialize result.
    [[nodiscard]] Result<Json> initialize(std::chrono::milliseconds timeout);
    /// Decides the backend's era and opens the session: server/discover with a modern envelope
    /// first (bounded by `probe_timeout`); a DiscoverResult or an error of the modern era means
    /// 2026-07-28, anything else (another error, a timeout) legacy, then initialize. Returns an
    /// initialize-shaped result (protocolVersion, capabilities, serverInfo, instructions).
    [[nodiscard]] Result<Json> open(std::chrono::milliseconds timeout,
                                    std::chrono::milliseconds probe_timeout);
    /// Whether open() found a 2026-07-28 backend (fixed for the session's life).
    [[nodiscard]] bool modern() const noexcept { return modern_.load(); }
    /// Every page of tools/list (following nextCursor), concatenated. Tools nested too deep
    /// are kept as placeholders for the caller to skip.
    [[nodiscard]] Result<Json> list_tools(std::chrono::milliseconds timeout, std::size_t max_bytes);
    /// The tool calls running on this session whose backend messages go to their callers.
    [[nodiscard]] RelayRoutes& relay_routes() noexcept { return relay_routes_; }

protected:
    /// The transport's half of request(): one request on the wire, its answer back.
    [[nodiscard]] virtual Result<Json> exchange(const std::string& method,
                                                Json params,
                                                const RequestOptions& options) = 0;
    /// Called once initialize and notifications/initialized went through (a 2025-11-25
    /// session), for a transport that opens more of the session then.
    virtual void on_initialized() {}
    /// Whether a modern session opens subscriptions/listen for tool changes (the remote
    /// transport reads no long-lived streams, so it does not).
    [[nodiscard]] virtual bool opens_subscriptions() const noexcept { return false; }
    /// Sends a request whose answer nobody waits for (subscriptions/listen, answered only when
    /// the stream ends); only sessions that opens_subscriptions() need it. By value: the sessions
    /// that send move it into the request.
    // NOLINTNEXTLINE(performance-unnecessary-value-param)
    [[nodiscard]] virtual Status send_unanswered(const std::string& method, Json /*params*/) {
        return Status{Errc::unavailable, method + " cannot be sent on this transport"};
    }

private:
    std::atomic<bool> modern_{false};
    RelayRoutes relay_routes_;
};

/// The session with a backend process on its stdio. Callbacks run on the reader thread and
/// must not call close().
class BackendSession : public McpSession {
public:
    using NotificationFn = gateway::NotificationFn;
    using ClosedFn = gateway::ClosedFn;

    /// Spawns the process and starts the reader and writer threads.
    [[nodiscard]] static Result<std::unique_ptr<BackendSession>> start(
        const BackendSpec& spec, NotificationFn on_notification, ClosedFn on_closed);
    BackendSession(const BackendSession&) = delete;
    BackendSession& operator=(const BackendSession&) = delete;
    ~BackendSession() override;

    [[nodiscard]] Status notify(const std::string& method, Json params) override;

    [[nodiscard]] bool closed() const noexcept override { return closed_.load(); }
    [[nodiscard]] pid_t pid() const noexcept { return child_->pid(); }
    [[nodiscard]] std::string where() const override { return "pid " + std::to_string(pid()); }
    /// Stops the process (queued lines get 100 ms to go out, then EOF, SIGTERM, SIGKILL,
    /// bounded by StopGraces) and the threads.
    /// Pending requests fail with unavailable. Idempotent; safe from several threads (not from
    /// a callback).
    void close() override;

protected:
    [[nodiscard]] Result<Json> exchange(const std::string& method,
                                        Json params,
                                        const RequestOptions& options) override;
    [[nodiscard]] bool opens_subscriptions() const noexcept override { return true; }
    [[nodiscard]] Status send_unanswered(const std::string& method, Json params) override;

private:
    // Its members' defaults (nlohmann::json among them) do not throw; the check cannot see it.
    // NOLINTNEXTLINE(bugprone-exception-escape)
    struct Pending {
        std::condition_variable cv;
        std::optional<Result<Json>> result;
        Json error;  ///< the JSON-RPC error object of an error answer
        bool cancelled = false;
        bool accept_pruned = false;
        std::size_t bytes = 0;  ///< of the answer's line
    };

    BackendSession(std::string name,
                   std::unique_ptr<ChildProcess> child,
                   NotificationFn n,
                   ClosedFn c);
    void reader_loop();
    void handle_line(const std::string& line);
    void handle_response(Message& m, std::size_t bytes);
    void fail_pending(const std::string& why);
    void log_malformed(const std::string& why);

    std::string name_;  ///< the server's name, for logs
    std::unique_ptr<ChildProcess> child_;
    std::unique_ptr<LineWriter> writer_;
    WakePipe reader_wake_;
    NotificationFn on_notification_;
    ClosedFn on_closed_;
    std::atomic<bool> closed_{false};
    std::mutex mutex_;
    std::int64_t next_id_ = 1;
    std::unordered_map<std::int64_t, std::shared_ptr<Pending>> pending_;
    std::size_t malformed_lines_ = 0;  ///< reader thread only
    std::thread reader_;
    std::once_flag close_once_;
};

}  // namespace scout::gateway
