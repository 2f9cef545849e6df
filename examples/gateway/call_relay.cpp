// call_relay.cpp: see call_relay.hpp.
#include "call_relay.hpp"

#include "log.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

/// MCP's logging levels, least severe first.
constexpr const char* kLogLevels[] = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

/// Ids of the gateway's requests to callers and of its progress tokens: unique in the process,
/// so one caller's can never be taken for another's.
std::atomic<std::uint64_t> g_next_relay_id{1};

std::string next_relay_name(const char* kind) {
    return std::string("scout-") + kind + "-" + std::to_string(g_next_relay_id.fetch_add(1));
}

/// The capability a request to the client needs, or nullptr when the gateway does not relay it.
const char* needed_capability(const std::string& method) {
    if (method == "sampling/createMessage") {
        return "sampling";
    }
    if (method == "elicitation/create") {
        return "elicitation";
    }
    return nullptr;
}

}  // namespace

int log_severity(const Json& level) {
    if (!level.is_string()) {
        return -1;
    }
    for (int i = 0; i < 8; ++i) {
        if (level.get_ref<const std::string&>() == kLogLevels[i]) {
            return i;
        }
    }
    return -1;
}

Json progress_token_of(const Message& request) {
    const Json params = request.body.value("params", Json());
    if (!params.is_object()) {
        return nullptr;
    }
    const Json meta = params.value("_meta", Json());
    if (!meta.is_object()) {
        return nullptr;
    }
    Json token = meta.value("progressToken", Json());
    return token.is_string() || token.is_number_integer() ? token : Json();
}

bool declares_capability(const Json& initialize_params, const char* name) {
    if (!initialize_params.is_object()) {
        return false;
    }
    const Json capabilities = initialize_params.value("capabilities", Json());
    return capabilities.is_object() && capabilities.value(name, Json()).is_object();
}

// ---------------------------------------------------------------------------------------------
// CallerAnswers

Json CallerAnswers::expect() {
    Json id = next_relay_name("relay");
    std::lock_guard lock(mutex_);
    awaited_[id.dump()] = std::nullopt;
    return id;
}

bool CallerAnswers::deliver(const Json& id, Json response) {
    {
        std::lock_guard lock(mutex_);
        auto it = awaited_.find(id.dump());
        if (it == awaited_.end() || it->second) {
            return false;
        }
        it->second = std::move(response);
    }
    cv_.notify_all();
    return true;
}

std::optional<Json> CallerAnswers::wait(const Json& id,
                                        std::chrono::steady_clock::time_point deadline,
                                        const std::function<bool()>& stop) {
    const std::string key = id.dump();
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, deadline, [&] {
        auto it = awaited_.find(key);
        return it == awaited_.end() || it->second.has_value() || stop();
    });
    std::optional<Json> answer;
    if (auto it = awaited_.find(key); it != awaited_.end()) {
        answer = std::move(it->second);
        awaited_.erase(it);
    }
    return answer;
}

void CallerAnswers::wake() {
    { std::lock_guard lock(mutex_); }  // a waiter between its check and its sleep sees the change
    cv_.notify_all();
}

std::size_t CallerAnswers::awaited() const {
    std::lock_guard lock(mutex_);
    return awaited_.size();
}

// ---------------------------------------------------------------------------------------------
// CallRelay

CallRelay::CallRelay(CallerChannel caller,
                     std::string server,
                     std::chrono::steady_clock::time_point deadline)
    : caller_(std::move(caller)),
      server_(std::move(server)),
      deadline_(deadline),
      backend_token_(next_relay_name("progress")) {}

CallRelay::~CallRelay() {
    finish();
}

void CallRelay::progress(const Json& params) {
    if (caller_.progress_token.is_null() || !caller_.send) {
        return;
    }
    if (progress_sent_.fetch_add(1) >= kMaxRelayedProgress) {
        ++progress_dropped_;
        return;
    }
    Json relayed = params;
    relayed["progressToken"] = caller_.progress_token;
    if (!caller_.send(to_line(make_notification("notifications/progress", std::move(relayed))))) {
        ++progress_dropped_;
    }
}

void CallRelay::message(const Json& params) {
    const int severity = log_severity(params.value("level", Json()));
    if (severity < 0 || caller_.log_severity < 0 || severity < caller_.log_severity ||
        !caller_.send) {
        return;
    }
    if (messages_sent_.fetch_add(1) >= kMaxRelayedMessages) {
        ++messages_dropped_;
        return;
    }
    Json relayed = params;  // the logger names the backend: "server" or "server/logger"
    const Json logger = params.value("logger", Json());
    relayed["logger"] = logger.is_string() ? server_ + "/" + logger.get<std::string>() : server_;
    if (!caller_.send(to_line(make_notification("notifications/message", std::move(relayed))))) {
        ++messages_dropped_;
    }
}

void CallRelay::ask(const Json& id, const std::string& method, const Json& params, Reply reply) {
    const char* capability = needed_capability(method);
    if (capability == nullptr) {
        reply(make_error(id, kMethodNotFound, "Method not found: " + detail::clipped(method)));
        return;
    }
    const bool declared = capability[0] == 's' ? caller_.sampling : caller_.elicitation;
    if (!declared || !caller_.answers || !caller_.send) {
        reply(make_error(id,
                         kMethodNotFound,
                         std::string("Method not found: the caller of this tool call did not "
                                     "declare the ") +
                             capability + " capability, so the gateway cannot relay " + method));
        return;
    }
    std::lock_guard lock(mutex_);
    if (finished_) {
        reply(make_error(id, kInternalError, "the tool call this request belongs to has ended"));
        return;
    }
    if (asks_.size() >= kMaxRelayedRequests) {
        reply(make_error(id,
                         kServerBusy,
                         "too many requests to the client in one tool call (at most " +
                             std::to_string(kMaxRelayedRequests) + ")"));
        return;
    }
    try {
        asks_.emplace_back([this, id, method, params, reply = std::move(reply)] {
            run_ask(id, method, params, reply);
        });
    } catch (const std::exception&) {  // out of threads: refused, the call goes on
        reply(make_error(id, kServerBusy, "the gateway cannot relay this request now"));
    }
}

void CallRelay::run_ask(const Json& id,
                        const std::string& method,
                        const Json& params,
                        const Reply& reply) {
    const Json asked = caller_.answers->expect();
    if (!caller_.send(to_line(make_request(asked, method, params)))) {
        (void)caller_.answers->wait(asked, std::chrono::steady_clock::now(), [] { return true; });
        reply(make_error(id, kInternalError, "the caller could not be reached"));
        return;
    }
    auto answer = caller_.answers->wait(asked, deadline_, [this] {
        std::lock_guard lock(mutex_);
        return finished_;
    });
    if (!answer) {
        // The caller never answered within the call: it hears the request is withdrawn.
        (void)caller_.send(to_line(make_notification(
            "notifications/cancelled",
            Json{{"requestId", asked}, {"reason", "the tool call ended or timed out"}})));
        reply(make_error(id, kInternalError, "the caller did not answer " + method + " in time"));
        return;
    }
    if (auto result = answer->find("result"); result != answer->end()) {
        reply(make_result(id, std::move(*result)));
        return;
    }
    Json error = answer->value("error", Json());
    if (!error.is_object() || !error.value("code", Json()).is_number_integer()) {
        error = Json{{"code", kInternalError}, {"message", "the caller's answer was malformed"}};
    }
    reply(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

void CallRelay::finish() {
    std::vector<std::thread> asks;
    {
        std::lock_guard lock(mutex_);
        if (finished_) {
            return;
        }
        finished_ = true;
        asks.swap(asks_);
    }
    if (caller_.answers) {
        caller_.answers->wake();
    }
    for (auto& t : asks) {
        t.join();
    }
    if (progress_dropped_ > 0 || messages_dropped_ > 0) {
        log_line(LogLevel::info,
                 "dropped backend messages beyond the per-call relay limits",
                 {{"server", server_},
                  {"progress_dropped", std::to_string(progress_dropped_.load())},
                  {"messages_dropped", std::to_string(messages_dropped_.load())}});
    }
}

// ---------------------------------------------------------------------------------------------
// RelayRoutes

void RelayRoutes::add(const std::shared_ptr<CallRelay>& relay) {
    std::lock_guard lock(mutex_);
    by_token_[relay->backend_token()] = relay;
}

void RelayRoutes::remove(const CallRelay& relay) {
    std::lock_guard lock(mutex_);
    by_token_.erase(relay.backend_token());
}

std::shared_ptr<CallRelay> RelayRoutes::by_token(const Json& token) const {
    if (!token.is_string()) {
        return nullptr;
    }
    std::lock_guard lock(mutex_);
    auto it = by_token_.find(token.get<std::string>());
    return it == by_token_.end() ? nullptr : it->second;
}

std::shared_ptr<CallRelay> RelayRoutes::sole() const {
    std::lock_guard lock(mutex_);
    return by_token_.size() == 1 ? by_token_.begin()->second : nullptr;
}

bool RelayRoutes::any() const {
    std::lock_guard lock(mutex_);
    return !by_token_.empty();
}

bool route_to_call(const RelayRoutes& routes, const Message& m, const CallRelay::Reply& reply) {
    if ((m.kind != MessageKind::notification && m.kind != MessageKind::request) ||
        !m.body.is_object()) {
        return false;  // responses and malformed lines are the session's
    }
    const Json params = m.body.value("params", Json::object());
    if (m.kind == MessageKind::notification && m.method == "notifications/progress") {
        if (auto relay = params.is_object() ? routes.by_token(params.value("progressToken", Json()))
                                            : nullptr) {
            relay->progress(params);
            return true;
        }
        return false;
    }
    if (m.kind == MessageKind::notification && m.method == "notifications/message") {
        if (!routes.any()) {
            return false;  // no call runs: the clients that set a level hear it
        }
        if (auto relay = routes.sole(); relay && params.is_object()) {
            relay->message(params);
        }
        return true;  // during calls, only the caller hears it; with several, nobody
    }
    if (m.kind == MessageKind::request && needed_capability(m.method) != nullptr) {
        if (auto relay = routes.sole(); relay && params.is_object()) {
            relay->ask(m.id, m.method, params, reply);
        } else {
            reply(make_error(m.id,
                             kMethodNotFound,
                             "Method not found: the gateway relays " + m.method +
                                 " only during a tool call, and only while that call is the "
                                 "only one running on this server"));
        }
        return true;
    }
    return false;
}

}  // namespace scout::gateway
