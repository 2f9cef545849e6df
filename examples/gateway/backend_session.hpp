// backend_session.hpp: a JSON-RPC session with one running backend process. A reader thread
// matches responses to requests by id, answers the backend's own requests, and reports
// notifications and the end of the stream.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "child_process.hpp"
#include "json_rpc.hpp"
#include "scout/status.hpp"

namespace scout::gateway {

/// How a backend is started (one entry of the mcpServers config).
struct BackendSpec {
    std::string name;
    std::string command;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string environment;  ///< optional label ("prod", "dev") for environment-aware routing
};

/// Thread-safe: request() may be called from many threads at once. Callbacks run on the reader
/// thread and must not call close().
class BackendSession {
public:
    using NotificationFn = std::function<void(const std::string& method, const Json& params)>;
    using ClosedFn = std::function<void()>;

    /// Spawns the process and starts the reader thread.
    [[nodiscard]] static Result<std::unique_ptr<BackendSession>> start(const BackendSpec& spec,
                                                                       NotificationFn on_notification,
                                                                       ClosedFn on_closed);
    BackendSession(const BackendSession&) = delete;
    BackendSession& operator=(const BackendSession&) = delete;
    ~BackendSession();

    /// Sends a request and waits for its response: the "result" member, or an error
    /// (unavailable when the backend died or timed out, invalid_argument for a JSON-RPC error).
    [[nodiscard]] Result<Json> request(const std::string& method,
                                       Json params,
                                       std::chrono::milliseconds timeout);
    [[nodiscard]] Status notify(const std::string& method, Json params = nullptr);

    /// initialize + notifications/initialized. Returns the initialize result.
    [[nodiscard]] Result<Json> initialize(std::chrono::milliseconds timeout);
    /// Every page of tools/list (following nextCursor), concatenated.
    [[nodiscard]] Result<Json> list_tools(std::chrono::milliseconds timeout);

    [[nodiscard]] bool closed() const noexcept { return closed_.load(); }
    [[nodiscard]] pid_t pid() const noexcept { return child_->pid(); }
    /// Stops the process and joins the reader. Pending requests fail with unavailable.
    /// Idempotent; safe to call from several threads (not from a callback).
    void close();

private:
    BackendSession(std::unique_ptr<ChildProcess> child, NotificationFn n, ClosedFn c);
    void reader_loop();
    void handle_line(const std::string& line);
    void fail_pending(const std::string& why);

    std::unique_ptr<ChildProcess> child_;
    NotificationFn on_notification_;
    ClosedFn on_closed_;
    std::atomic<bool> closed_{false};
    std::mutex mutex_;
    std::int64_t next_id_ = 1;
    std::unordered_map<std::int64_t, std::promise<Result<Json>>> pending_;
    std::thread reader_;
    std::once_flag close_once_;
};

}  // namespace scout::gateway
