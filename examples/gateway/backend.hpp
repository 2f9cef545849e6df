// backend.hpp: one configured backend under supervision. A thread starts the process, runs the
// MCP handshake and a full tools/list, indexes the tools into the Catalog, re-indexes on
// notifications/tools/list_changed, and when the process dies marks the server DEGRADED (in the
// catalog, or in the registry it publishes to) and restarts it with exponential backoff.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "scout/catalog.hpp"

#include "backend_session.hpp"
#include "doctor_report.hpp"

namespace scout::gateway {

struct BackendTimings {
    std::chrono::milliseconds request_timeout{30000};  ///< initialize and tools/list
    /// The server/discover probe that tells a 2026-07-28 backend from a legacy one.
    std::chrono::milliseconds discover_timeout = kDiscoverProbeTimeout;
    std::chrono::milliseconds call_timeout{120000};  ///< tools/call
    /// Least time between two re-listings, however fast list_changed notifications come.
    std::chrono::milliseconds relist_interval{200};
    std::chrono::milliseconds initial_backoff{250};
    std::chrono::milliseconds max_backoff{30000};
    /// A process that lived this long resets the backoff: it was a crash, not a crash loop.
    std::chrono::milliseconds stable_after{10000};
    /// All pages of one tools/list together: a paging backend must not grow the gateway
    /// without end.
    std::size_t max_listing_bytes = 64u << 20;
    /// Where the catalog doctor's JSON report goes at index time (--doctor-report); null: none.
    std::shared_ptr<DoctorReportFile> doctor_report;
};

/// How a backend's resource subscriptions reach the gateway (Backend::set_resource_hooks).
struct ResourceHooks {
    /// A notifications/resources/updated of the backend (its own URI), on a reader thread.
    std::function<void(const std::string& uri)> updated;
    /// The URIs clients hold on this backend, subscribed again after each (re)start.
    std::function<std::vector<std::string>()> held;
    /// A notifications/message of the backend (its params), on a reader thread.
    std::function<void(const Json& params)> message;
    /// The logging level clients asked for ("" for none), set again after each (re)start.
    std::function<std::string()> log_level;
};

/// Thread-safe. The Catalog must outlive the Backend.
class Backend {
public:
    Backend(BackendSpec spec,
            Catalog& catalog,
            BackendTimings timings,
            std::function<void()> on_indexed);
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;
    ~Backend();

    [[nodiscard]] const std::string& name() const noexcept { return spec_.name; }
    [[nodiscard]] const std::string& environment() const noexcept { return spec_.environment; }
    [[nodiscard]] const BackendSpec& spec() const noexcept { return spec_; }
    /// A reload removed or replaced this backend: from now on it never writes the catalog (no
    /// listing, no DEGRADED mark), while the calls in flight on it finish.
    void retire() noexcept { retired_.store(true); }
    /// Sets how resource subscriptions are passed through; call before start().
    void set_resource_hooks(ResourceHooks hooks) { resource_hooks_ = std::move(hooks); }
    /// Where listings go instead of the catalog (a shared registry whose changes reach the
    /// catalog by another way); call before start().
    using Publisher = std::function<Status(const ServerSpec& server)>;
    void set_publisher(Publisher publisher) { publisher_ = std::move(publisher); }
    /// Starts the supervising thread.
    void start();
    /// Waits until the first start attempt has finished (indexed or failed), at most `timeout`.
    bool wait_first_attempt(std::chrono::milliseconds timeout);
    /// Asks the supervisor and the process to stop without waiting: a handshake, listing or
    /// backoff in progress ends soon after. stop() then waits for it.
    void request_stop();
    /// request_stop(), then waits until the process and the supervising thread are gone
    /// (bounded by StopGraces). Idempotent.
    void stop();

    /// tools/call on the backend: its result object untouched, or an error: unavailable (not
    /// running, timed out, cancelled through `cancel`), invalid_argument (the JSON-RPC error,
    /// or a result that is not an object or is nested too deep).
    /// With a `caller`, the call is relayed (call_relay.hpp): the backend's progress, logging
    /// and requests to the client during it go to that caller.
    [[nodiscard]] Result<Json> call_tool(const std::string& tool,
                                         const Json& arguments,
                                         std::shared_ptr<CancelToken> cancel = nullptr,
                                         const CallerChannel* caller = nullptr);
    /// Any other request (resources/*, prompts/*) with the call timeout: its result object, or
    /// an error as for call_tool.
    [[nodiscard]] Result<Json> request(const std::string& method,
                                       Json params,
                                       std::shared_ptr<CancelToken> cancel = nullptr);
    /// "starting" (first attempt running), "active", "degraded" (restarting) or "stopped".
    [[nodiscard]] const char* state();
    /// False when the running backend's initialize result lacks resources.subscribe (true
    /// while it is not running: a request then fails as unavailable).
    [[nodiscard]] bool accepts_resource_subscriptions();
    /// True when the running backend's initialize result has the logging capability.
    [[nodiscard]] bool supports_logging();
    /// True when the running backend's initialize result has the completions capability.
    [[nodiscard]] bool supports_completions();

private:
    /// The session requests go to, or null when the backend is not running.
    std::shared_ptr<McpSession> running_session();
    void run();
    bool connect_and_index();
    void serve_until_closed();
    Status index(const Json& tools);
    /// Logs the catalog doctor's one-line summary of the server just indexed (docs/doctor.md) and
    /// updates the JSON report file when there is one.
    void log_doctor_summary(const CatalogSpec& indexed) const;
    /// Subscribes the new session to the URIs clients still hold.
    void resubscribe(McpSession& session);
    void mark_degraded();
    /// mark_degraded() with a publisher: the last listing pushed again as DEGRADED.
    void publish_degraded();
    bool sleep_for(std::chrono::milliseconds d);

    BackendSpec spec_;
    Catalog& catalog_;
    BackendTimings timings_;
    std::function<void()> on_indexed_;
    std::string description_;
    ResourceHooks resource_hooks_;
    Publisher publisher_;

    std::mutex mutex_;
    std::condition_variable cv_;
    bool stopping_ = false;
    bool first_attempt_done_ = false;
    bool ready_ = false;   ///< session_ is initialized and has listed its tools
    bool closed_ = false;  ///< session_'s process ended
    bool list_changed_ = false;
    bool subscribable_ = false;     ///< session_'s initialize result has resources.subscribe
    bool logging_ = false;          ///< ... and logging
    bool completions_ = false;      ///< ... and completions
    std::uint64_t generation_ = 0;  ///< which session the callbacks belong to
    std::atomic<bool> retired_{false};
    /// With a publisher: the listing last pushed as ACTIVE, pushed again as DEGRADED when the
    /// backend goes down (the registry keeps its listed_at, so the fleet's TTL starts).
    std::optional<ServerSpec> last_published_;
    std::shared_ptr<McpSession> session_;
    std::thread thread_;
};

}  // namespace scout::gateway
