// backend.hpp: one configured backend under supervision. A thread starts the process, runs the
// MCP handshake and a full tools/list, indexes the tools into the Catalog, re-indexes on
// notifications/tools/list_changed, and when the process dies marks the server DEGRADED and
// restarts it with exponential backoff.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "backend_session.hpp"
#include "scout/catalog.hpp"

namespace scout::gateway {

struct BackendTimings {
    std::chrono::milliseconds request_timeout{30000};  ///< initialize and tools/list
    std::chrono::milliseconds call_timeout{120000};    ///< tools/call
    std::chrono::milliseconds initial_backoff{250};
    std::chrono::milliseconds max_backoff{30000};
    /// A process that lived this long resets the backoff: it was a crash, not a crash loop.
    std::chrono::milliseconds stable_after{10000};
};

/// Thread-safe. The Catalog must outlive the Backend.
class Backend {
public:
    Backend(BackendSpec spec, Catalog& catalog, BackendTimings timings, std::function<void()> on_indexed);
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;
    ~Backend();

    [[nodiscard]] const std::string& name() const noexcept { return spec_.name; }
    /// Starts the supervising thread.
    void start();
    /// Waits until the first start attempt has finished (indexed or failed), at most `timeout`.
    bool wait_first_attempt(std::chrono::milliseconds timeout);
    /// Stops supervising and the process. Idempotent.
    void stop();

    /// tools/call on the backend: its result JSON untouched, or unavailable / the JSON-RPC error.
    [[nodiscard]] Result<Json> call_tool(const std::string& tool, const Json& arguments);

private:
    void run();
    bool connect_and_index();
    void serve_until_closed();
    Status index(const Json& tools);
    void mark_degraded();
    bool sleep_for(std::chrono::milliseconds d);

    BackendSpec spec_;
    Catalog& catalog_;
    BackendTimings timings_;
    std::function<void()> on_indexed_;
    std::string description_;

    std::mutex mutex_;
    std::condition_variable cv_;
    bool stopping_ = false;
    bool first_attempt_done_ = false;
    bool ready_ = false;         ///< session_ is initialized and indexed
    bool closed_ = false;        ///< session_'s process ended
    bool list_changed_ = false;
    std::uint64_t generation_ = 0;  ///< which session the callbacks belong to
    std::shared_ptr<BackendSession> session_;
    std::thread thread_;
};

}  // namespace scout::gateway
