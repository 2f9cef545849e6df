// gateway.hpp: the router between one MCP client (on stdio) and the backends. Answers
// initialize, ping, tools/list (the meta-tools, or every tool with --expose all) and tools/call,
// routing executions to the backend that owns the tool. The thread that reads the client never
// waits for a backend: tools/list and tools/call run on a CallPool, so ping and cancellations
// are answered at once whatever the backends do.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"

#include "backend.hpp"
#include "call_pool.hpp"
#include "cancel_token.hpp"
#include "json_rpc.hpp"
#include "metrics.hpp"
#include "outcome_memory.hpp"
#include "resource_subscriptions.hpp"

namespace scout::gateway {

/// Protocol versions the gateway speaks; a client asking for another gets the newest.
inline constexpr const char* kSupportedProtocolVersions[] = {
    "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/// Prefix of a pass-through resource URI: "scout-gateway://<server>/<the backend's URI>".
inline constexpr std::string_view kResourceUriScheme = "scout-gateway://";

/// How much work a client can hand the gateway at once; beyond it a call is refused with
/// kServerBusy.
struct CallLimits {
    /// Calls running at once (each may wait on a backend up to its timeout).
    std::size_t threads = 256;
    /// Calls waiting for one of those threads.
    std::size_t queued = 4096;
    /// Bytes of tools/call request lines in flight (queued or running): bounds the memory a
    /// client can make the gateway hold.
    std::size_t bytes_in_flight = 256u << 20;
};

/// Tools listed in tools/list next to the two meta-tools (config "pinned", and "pin": true on a
/// server); they stay searchable and are called by their listed name.
struct PinnedTools {
    std::vector<std::string> servers;  ///< every tool of these servers
    std::vector<ToolKey> tools;
    [[nodiscard]] bool empty() const noexcept { return servers.empty() && tools.empty(); }
    [[nodiscard]] bool operator==(const PinnedTools&) const = default;
};

/// What Gateway::reload changed, by server name.
struct ReloadReport {
    std::vector<std::string> added;      ///< new entries, started
    std::vector<std::string> removed;    ///< entries gone: out of the catalog, then stopped
    std::vector<std::string> restarted;  ///< entries that changed: the old backend replaced
    std::size_t kept = 0;                ///< entries unchanged, their backends untouched
    bool pinned_changed = false;
};

/// Thread-safe. `write` sends one JSON-RPC line to the client; it is called from several
/// threads (responses, list_changed notifications) and must serialize itself.
class Gateway {
public:
    /// Whether a write may wait for a client slow to read (back-pressure). The thread reading
    /// the client and the backends' threads never wait: when the output is full, they drop.
    enum class Wait { allowed, never };
    using Writer = std::function<void(const std::string& line, Wait wait)>;

    /// Takes the catalog's event sink (to tell callers' searches from its own in /metrics).
    Gateway(Catalog& catalog,
            std::vector<BackendSpec> backends,
            mcp::Connector connector,
            const BackendTimings& timings,
            Writer write,
            CallLimits limits = {});
    Gateway(const Gateway&) = delete;
    Gateway& operator=(const Gateway&) = delete;
    ~Gateway();

    /// Starts every backend. tools/list and tools/call wait (on a pool thread) until each
    /// backend's first start attempt has ended or `wait` has passed, so the first listing
    /// already sees the indexed tools; everything else is answered at once.
    void start(std::chrono::milliseconds wait);
    /// Sets the pinned tools; call before start().
    void set_pinned(PinnedTools pinned);
    /// A reloaded config's backends and pinned tools replace the running ones. An entry equal to
    /// a running one keeps its backend untouched; a new entry starts (at once if start() was
    /// called); a removed one leaves tools/list and tool_search at once, and its backend stops
    /// once the calls in flight on it have ended (at most the call timeout later): calls that
    /// began before the reload finish on the backend they began on. A changed entry is both: the
    /// old backend retires that way and a new one starts. Thread-safe.
    ReloadReport reload(std::vector<BackendSpec> backends, PinnedTools pinned);
    /// Every backend's listings go to `publisher` instead of the catalog (Backend::set_publisher);
    /// call before start().
    void set_publisher(const Backend::Publisher& publisher);
    /// The catalog changed by another way than a backend's listing (a registry replica applied
    /// a change): clients hear notifications/tools/list_changed when their tools/list changed.
    void catalog_changed() { on_indexed(); }
    /// Learned outcomes (--learn) go to `recorder` instead of the catalog (a registry
    /// replica shares them with the fleet); call before start().
    void set_outcome_recorder(OutcomeMemory::Recorder recorder) {
        outcomes_.set_recorder(std::move(recorder));
    }
    /// More Prometheus text appended to metrics_text() (it must name no server); call before
    /// start().
    void set_extra_metrics(std::function<std::string()> extra) {
        extra_metrics_ = std::move(extra);
    }
    /// Called (on a backend's thread) whenever tools/list may have changed; call before start().
    void add_list_changed_listener(std::function<void()> listener) {
        listeners_.push_back(std::move(listener));
    }
    /// Called (on a backend's thread, never waiting) with a notifications/resources/updated line
    /// for the HTTP sessions (by id) subscribed to its resource; call before start().
    using UpdateListener =
        std::function<void(const std::vector<std::string>& sessions, const std::string& line)>;
    void set_resource_update_listener(UpdateListener listener) {
        update_listener_ = std::move(listener);
    }
    /// The end of an HTTP session: its resource subscriptions end (a backend is unsubscribed,
    /// off this thread, from the URIs nobody else holds).
    void end_client(const std::string& session);
    /// The process-wide connector (the stdio client's scope); HTTP callers' scopes narrow it.
    [[nodiscard]] const mcp::Connector& connector() const noexcept { return meta_.connector(); }

    /// Handles one line from the client. Never waits for a backend.
    void handle_line(const std::string& line);
    /// The answer to one request (not a notification) of a caller whose scope is `tools`,
    /// computed on the calling thread: it waits for the backends, bounded by their timeouts, and
    /// a cancelled `cancel` ends the wait. Used by the HTTP transport, one thread per request;
    /// `client` names whose resource subscriptions resources/(un)subscribe change (the HTTP
    /// session's id). With a `caller`, a tools/call is relayed to it (call_relay.hpp); its
    /// log_severity is filled in here from the level `client` set.
    [[nodiscard]] Json answer(const Message& m,
                              const mcp::MetaTools& tools,
                              const std::shared_ptr<CancelToken>& cancel,
                              const std::string& client = kStdioClient,
                              CallerChannel* caller = nullptr);
    /// The same for a request of the stateless 2026-07-28 era: its envelope checked first, the
    /// result stamped with resultType (and ttlMs/cacheScope, "private" when `per_caller`: the
    /// answer depends on the caller's scope). subscriptions/listen is not answered here.
    [[nodiscard]] Json answer_modern(const Message& m,
                                     const mcp::MetaTools& tools,
                                     const std::shared_ptr<CancelToken>& cancel,
                                     bool per_caller);
    /// The tools/list result for the scope `tools`: the meta-tools and the pinned tools in scope.
    [[nodiscard]] Json list_result(const mcp::MetaTools& tools);
    /// /metrics in Prometheus text format, every series (an unscoped caller's view).
    [[nodiscard]] std::string metrics_text();
    /// The same as a caller whose scope is `visible_servers` sees it: nullopt is everything;
    /// otherwise only the backend and tool series of the listed servers, so a scoped token
    /// learns no other server's or tool's name. Aggregates (tool_search latency and failures,
    /// the catalog's searches and fallbacks, HTTP requests and 401s) name neither, and stay.
    [[nodiscard]] std::string metrics_text(
        const std::optional<std::vector<std::string>>& visible_servers);
    [[nodiscard]] Metrics& metrics() noexcept { return metrics_; }
    /// /readyz: ready once the start-up is over (every backend's first start attempt ended, or
    /// the start-up wait passed), with a body that names no server: the catalog's tool count and
    /// index generation, how many backends are in each state, and the embedder's state ("active",
    /// "degraded": tools indexed without vectors, or "none": BM25 only). Never waits.
    // nlohmann::json's default does not throw; the exception-escape check cannot see it.
    // NOLINTNEXTLINE(bugprone-exception-escape)
    struct Readiness {
        bool ready = false;
        Json body;
    };
    [[nodiscard]] Readiness readiness();
    /// Answers a client line that was dropped for being longer than `limit` bytes.
    void handle_oversized(std::size_t bytes, std::size_t limit);
    /// Stops every backend at once (bounded by StopGraces), which ends the calls in flight
    /// with an error, and waits until those answers are written. Idempotent.
    void shutdown();

private:
    Json handle_request(const Message& m);
    Json initialize(const Json& params);
    /// A request of the 2026-07-28 era from the stdio client (no initialize needed).
    void handle_modern(const Message& m, std::size_t bytes);
    void start_call(const Message& m, std::size_t bytes, bool modern = false);
    /// subscriptions/listen: acknowledged at once, then fed tools/list_changed until cancelled
    /// (notifications/cancelled naming it) or ended with a result at shutdown.
    void open_subscription(const Message& m);
    void close_subscription(const Json& params);
    /// A write from the thread reading the client (never waits).
    void reply(const Json& message) { write_(to_line(message), Wait::never); }
    void list_tools(const Json& id, Wait wait);
    void cancel_call(const Json& params);
    Json call_tool(const Json& id,
                   const Json& params,
                   const mcp::MetaTools& tools,
                   const std::shared_ptr<CancelToken>& cancel,
                   const CallerChannel* caller);
    /// resources/* and prompts/* passed through to the backends in scope (server-prefixed).
    Json pass_through(const Message& m,
                      const mcp::MetaTools& tools,
                      const std::shared_ptr<CancelToken>& cancel,
                      const std::string& client);
    /// Every item of `backend`'s listing `method` (pages followed, at most kMaxPassThroughPages)
    /// whose `key` is a string; nothing when it fails.
    std::vector<Json> listed(Backend& backend,
                             const char* method,
                             const char* field,
                             const char* key,
                             const std::shared_ptr<CancelToken>& cancel);
    /// The backends in `in_scope` that list a prompt named `name` (or, for a `resource`, a
    /// resource with that URI, else a resource template it expands).
    std::vector<std::shared_ptr<Backend>> bare_owners(
        const std::vector<std::shared_ptr<Backend>>& in_scope,
        bool resource,
        const std::string& name,
        const std::shared_ptr<CancelToken>& cancel);
    /// resources/subscribe or resources/unsubscribe of `uri` (the backend's own) for `client`.
    Json change_subscription(const Message& m,
                             Backend& backend,
                             const std::string& uri,
                             const std::string& client,
                             const std::shared_ptr<CancelToken>& cancel);
    /// completion/complete: a prompt or resource-template reference, named as prompts/list and
    /// resources/templates/list name them, goes to its server with the server's own name; a
    /// reference no server in scope offers completions for has no suggestions.
    Json complete(const Message& m,
                  const mcp::MetaTools& tools,
                  const std::shared_ptr<CancelToken>& cancel);
    /// logging/setLevel from `client`: remembered (the backend's messages at that level and
    /// above, from the servers in its scope, go to it) and sent to the backends in scope that
    /// have the logging capability (and again after each restart).
    Json set_logging_level(const Message& m,
                           const mcp::MetaTools& tools,
                           const std::shared_ptr<CancelToken>& cancel,
                           const std::string& client);
    /// A backend's notifications/message, to the clients that asked for its level.
    void forward_log(const std::string& server, const Json& params);
    /// A backend's notifications/resources/updated, to the clients subscribed to it.
    void forward_update(const std::string& server, const std::string& uri);
    /// The backends whose server the scope of `tools` reaches.
    std::vector<std::shared_ptr<Backend>> backends_in_scope(const mcp::MetaTools& tools);
    /// The tools a tools/call name that is not the meta-tools' (nor an enhanced name) denotes:
    /// "server/name" names that one; a bare name every server in scope that has a tool so
    /// named (tools out of the caller's scope are never among them).
    std::vector<ToolKey> direct_tools(const mcp::MetaTools& tools,
                                      const Searcher& searcher,
                                      const std::string& name);
    /// Why `arguments` break the tool's indexed inputSchema, or nullopt (argument_check.hpp).
    std::optional<std::string> schema_problem(const ToolKey& key, const Json& arguments);
    Result<Json> execute(const ToolKey& key,
                         const Json& arguments,
                         const std::shared_ptr<CancelToken>& cancel,
                         const CallerChannel* caller);
    /// How a legacy tools/call of the stdio client reaches it during the call.
    CallerChannel stdio_channel(const Message& m);
    void wait_started();
    void on_indexed();
    using BackendSet = std::vector<std::shared_ptr<Backend>>;
    /// The backends now: calls hold this snapshot, so a reload never stops a backend under them.
    [[nodiscard]] std::shared_ptr<const BackendSet> backends() const;
    [[nodiscard]] std::shared_ptr<const PinnedTools> pinned() const;
    /// The backend named `server` in the current set, or null.
    [[nodiscard]] std::shared_ptr<Backend> backend(const std::string& server) const;
    /// A Backend of `spec` with the gateway's hooks (and publisher), not started. The pointer
    /// returned is a handle: when the last copy goes, retire_signal_ is notified (the Backend
    /// itself lives on while retire() holds it).
    std::shared_ptr<Backend> make_backend(BackendSpec spec);
    /// The lock that orders one server's resource subscription changes (made on first use).
    std::shared_ptr<std::mutex> subscription_lock(const std::string& server);
    /// Stops `retired` (backends a reload removed or replaced) on a thread of their own once no
    /// call holds them; the listings of `dropped` servers leave the catalog at once.
    void retire(std::vector<std::shared_ptr<Backend>> retired, std::vector<std::string> dropped);
    void drop_listings(const std::vector<std::string>& servers);

    Catalog& catalog_;
    BackendTimings timings_;
    Backend::Publisher publisher_;
    mcp::MetaTools meta_;
    OutcomeMemory outcomes_;  ///< used when the connector learns from executions
    Writer write_;
    mutable std::mutex
        backends_mutex_;  ///< guards backends_, pinned_, subscription_locks_, launched_
    std::shared_ptr<const BackendSet> backends_;
    std::shared_ptr<const PinnedTools> pinned_;
    bool launched_ = false;  ///< start() was called: a reload starts the backends it adds
    /// What wakes the threads stopping retired backends: the release of a backend's last handle
    /// (make_backend's deleter) or shutdown. Shared with those deleters, which may outlive us.
    struct RetireSignal {
        std::mutex mutex;
        std::condition_variable cv;
        bool now = false;  ///< shutdown: stop retired backends without waiting for calls
        /// Threads stopping retired backends (one per reload that retired any), joined at
        /// shutdown.
        std::vector<std::thread> retirers;
    };
    std::shared_ptr<RetireSignal> retire_signal_ = std::make_shared<RetireSignal>();
    /// The deleter of make_backend's handles (gateway.cpp).
    struct HandleRelease;
    CallLimits limits_;
    std::vector<std::function<void()>> listeners_;
    UpdateListener update_listener_;
    ResourceSubscriptions resource_subs_;
    /// Per server: held while a subscription's first holder comes or last one goes, so the
    /// backend's subscribe and unsubscribe follow the registry in order.
    std::unordered_map<std::string, std::shared_ptr<std::mutex>> subscription_locks_;
    /// Clients that sent logging/setLevel (kStdioClient or an HTTP session id): the level they
    /// asked for and the servers in their scope.
    struct LogClient {
        std::string level;
        std::vector<std::string> servers;
    };
    std::mutex log_mutex_;
    std::map<std::string, LogClient> log_clients_;
    std::string backend_log_level_;  ///< the last level asked, sent to restarted backends
    Metrics metrics_;
    std::function<std::string()> extra_metrics_;
    CallPool pool_;

    std::atomic<bool> initialize_seen_{false};     ///< the client sent initialize
    std::atomic<bool> client_initialized_{false};  ///< ... and notifications/initialized
    /// The stdio client's initialize declared sampling / elicitation (relayed to it in calls).
    std::atomic<bool> stdio_sampling_{false};
    std::atomic<bool> stdio_elicitation_{false};
    /// The stdio client's answers to the backends' requests relayed to it.
    std::shared_ptr<CallerAnswers> stdio_answers_ = std::make_shared<CallerAnswers>();
    std::chrono::steady_clock::time_point startup_deadline_;
    std::mutex startup_mutex_;
    std::atomic<bool> started_{false};  ///< every backend's first attempt is over (or timed out)
    /// Says, once the first attempts are over, when no backend came up (start()).
    std::thread startup_watch_;
    std::mutex list_mutex_;
    std::string
        last_list_;  ///< the tools/list answer last sent or announced, to notify only on change

    std::mutex calls_mutex_;
    /// tools/call requests in flight, by their id's JSON text, for notifications/cancelled.
    std::unordered_map<std::string, std::shared_ptr<CancelToken>> calls_;
    std::size_t call_bytes_ = 0;  ///< summed line sizes of calls_ (limits_.bytes_in_flight)
    std::once_flag shutdown_once_;

    std::mutex subscriptions_mutex_;
    /// Open subscriptions/listen requests of the stdio client (their ids), by id's JSON text.
    std::unordered_map<std::string, Json> subscriptions_;
};

}  // namespace scout::gateway
