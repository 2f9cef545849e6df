// call_relay.hpp: what a backend says to the caller while that caller's tools/call runs on it.
// Each relayed call gets a progress token of the gateway's own towards the backend; the backend's
// notifications/progress naming it go back to that caller only, with the caller's own token.
// The backend's notifications/message and its requests to the client (sampling/createMessage,
// elicitation/create) carry no call, so they go to the caller of the one call relayed on that
// backend session at that moment; with several running they reach nobody (never a wrong caller).
// Everything is bounded: progress and messages per call, open requests per call, and each
// request's wait (the call's own deadline).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "json_rpc.hpp"

namespace scout::gateway {

/// notifications/progress relayed per call; later ones are dropped (counted, logged at the end).
inline constexpr std::size_t kMaxRelayedProgress = 1000;
/// notifications/message relayed per call; later ones are dropped the same way.
inline constexpr std::size_t kMaxRelayedMessages = 1000;
/// A backend's requests to the caller per call (a backend asking more is refused).
inline constexpr std::size_t kMaxRelayedRequests = 16;

/// The rank of an MCP logging level ("debug" 0 ... "emergency" 7), or -1 for anything else.
[[nodiscard]] int log_severity(const Json& level);

/// The _meta.progressToken of a request when it is a string or an integer, else null.
[[nodiscard]] Json progress_token_of(const Message& request);
/// Whether initialize params declare the client capability `name` (an object).
[[nodiscard]] bool declares_capability(const Json& initialize_params, const char* name);

/// The answers of one caller (the stdio client, an HTTP session) to the requests the gateway
/// relayed to it, by the id the gateway gave them: only that caller's responses reach them.
/// Thread-safe.
class CallerAnswers {
public:
    /// A new request id ("scout-relay-N"), from now on awaited by wait().
    [[nodiscard]] Json expect();
    /// A response of the caller (its whole message): true when it answers a request awaited.
    bool deliver(const Json& id, Json response);
    /// The response to `id`, or nullopt when `deadline` passed or `stop()` turned true (it is
    /// checked whenever wake() runs). The id is forgotten either way.
    [[nodiscard]] std::optional<Json> wait(const Json& id,
                                           std::chrono::steady_clock::time_point deadline,
                                           const std::function<bool()>& stop);
    /// Wakes every wait() to check its stop condition.
    void wake();
    /// Requests awaited now (for tests and bounds).
    [[nodiscard]] std::size_t awaited() const;

private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::map<std::string, std::optional<Json>> awaited_;  ///< by the id's JSON text
};

/// How to reach the caller of one call; filled by the transport that carries the caller.
// nlohmann::json's default does not throw; the exception-escape check cannot see it.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct CallerChannel {
    /// Sends one JSON-RPC line to the caller, never waiting; false when it cannot (dropped).
    std::function<bool(const std::string& line)> send;
    /// Where the caller's responses come back; null: the caller cannot be asked anything.
    std::shared_ptr<CallerAnswers> answers;
    bool sampling = false;     ///< the caller declared the sampling capability at initialize
    bool elicitation = false;  ///< ... and elicitation
    Json progress_token;       ///< the caller's _meta.progressToken; null: none
    /// The least severe logging level (log_severity) the caller asked for; -1: it asked for none,
    /// and gets no messages.
    int log_severity = -1;
};

/// One relayed call, from its start on the backend to its answer. Thread-safe.
class CallRelay {
public:
    /// What the relay sends the backend (an answer to one of its requests).
    using Reply = std::function<void(const Json& message)>;

    CallRelay(CallerChannel caller,
              std::string server,
              std::chrono::steady_clock::time_point deadline);
    CallRelay(const CallRelay&) = delete;
    CallRelay& operator=(const CallRelay&) = delete;
    ~CallRelay();

    /// The progress token this call carries to the backend (unique in the process).
    [[nodiscard]] const std::string& backend_token() const noexcept { return backend_token_; }
    /// A notifications/progress of the backend for this call: to the caller, with its token
    /// (nothing when the caller gave none).
    void progress(const Json& params);
    /// A notifications/message of the backend during this call, when the caller's level takes
    /// it; the logger names the server ("server" or "server/logger").
    void message(const Json& params);
    /// A request of the backend (sampling/createMessage, elicitation/create): asked of the caller
    /// on a thread of its own when the caller can answer, else refused; `reply` gets the answer
    /// (or an error) for the backend, once, within the call's deadline.
    void ask(const Json& id, const std::string& method, const Json& params, Reply reply);
    /// The call is over: open requests end (the backend gets an error), their threads are
    /// joined, and drops are logged. Idempotent; the destructor calls it.
    void finish();

    [[nodiscard]] std::size_t progress_dropped() const noexcept { return progress_dropped_; }
    [[nodiscard]] std::size_t messages_dropped() const noexcept { return messages_dropped_; }

private:
    void run_ask(const Json& id, const std::string& method, const Json& params, const Reply& reply);

    CallerChannel caller_;
    std::string server_;
    std::chrono::steady_clock::time_point deadline_;
    std::string backend_token_;
    std::atomic<std::size_t> progress_sent_{0};
    std::atomic<std::size_t> progress_dropped_{0};
    std::atomic<std::size_t> messages_sent_{0};
    std::atomic<std::size_t> messages_dropped_{0};
    std::mutex mutex_;
    bool finished_ = false;
    std::vector<std::thread> asks_;
};

/// The calls relayed on one backend session, by the progress token they carry. Thread-safe.
class RelayRoutes {
public:
    void add(const std::shared_ptr<CallRelay>& relay);
    void remove(const CallRelay& relay);
    /// The call whose token `token` is, or null.
    [[nodiscard]] std::shared_ptr<CallRelay> by_token(const Json& token) const;
    /// The only call relayed now, or null when there are none or several.
    [[nodiscard]] std::shared_ptr<CallRelay> sole() const;
    /// Whether any call is relayed now.
    [[nodiscard]] bool any() const;

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<CallRelay>> by_token_;
};

/// How a backend session handles a message that may belong to a relayed call: progress by its
/// token, logging and requests to the client by the sole relayed call. Returns true when the
/// message was taken (relayed, dropped as ambiguous, or answered through `reply`); false leaves
/// it to the session's usual handling.
bool route_to_call(const RelayRoutes& routes, const Message& m, const CallRelay::Reply& reply);

}  // namespace scout::gateway
