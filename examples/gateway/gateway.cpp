// gateway.cpp: see gateway.hpp.
#include "gateway.hpp"

#include <algorithm>
#include <map>
#include <thread>

#include "scout/events.hpp"

#include "argument_check.hpp"
#include "bounded_json.hpp"
#include "direct_names.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

bool is_error_result(const Json& result) {
    auto e = result.is_object() ? result.find("isError") : result.end();
    return result.is_object() && e != result.end() && e->is_boolean() && e->get<bool>();
}

/// Pages of one backend's resources/list (or templates, prompts) the gateway follows.
constexpr int kMaxPassThroughPages = 20;
constexpr std::string_view kUriScheme = kResourceUriScheme;

std::string prefixed_uri(const std::string& server, const std::string& uri) {
    return std::string(kUriScheme) + server + "/" + uri;
}

/// While a thread answers a caller's tool_search: the catalog's fallback events it saw (-1 when
/// it is answering none). The catalog's searches also include the gateway's own (the doctor's,
/// run when a backend is indexed); only callers' searches count in /metrics.
thread_local int t_caller_fallbacks = -1;

/// The catalog calls emit() on the searching thread, so the thread-local tells whose search it is.
class CallerFallbackSink final : public EventSink {
public:
    void emit(const Event& event) override {
        if (t_caller_fallbacks >= 0 && event.name == "tool_search_fallback") {
            ++t_caller_fallbacks;
        }
    }
};

}  // namespace

Gateway::Gateway(Catalog& catalog,
                 std::vector<BackendSpec> backends,
                 mcp::Connector connector,
                 const BackendTimings& timings,
                 Writer write,
                 CallLimits limits)
    : catalog_(catalog),
      timings_(timings),
      meta_(std::move(connector)),
      write_(std::move(write)),
      pinned_(std::make_shared<const PinnedTools>()),
      limits_(limits),
      pool_(limits.threads, limits.queued) {
    auto set = std::make_shared<BackendSet>();
    for (auto& spec : backends) {
        set->push_back(make_backend(std::move(spec)));
    }
    backends_ = std::move(set);
    catalog_.set_event_sink(std::make_shared<CallerFallbackSink>());
}

Gateway::~Gateway() {
    shutdown();
}

/// Keeps the Backend alive while handles exist; when the last goes, wakes the retirers (taking
/// the lock first, so a retirer between its check and its wait cannot miss the wake-up).
struct Gateway::HandleRelease {
    std::shared_ptr<Backend> owner;
    std::shared_ptr<RetireSignal> signal;
    void operator()(Backend* /*handle*/) const {
        { std::lock_guard lock(signal->mutex); }
        signal->cv.notify_all();
    }
};

std::shared_ptr<Backend> Gateway::make_backend(BackendSpec spec) {
    auto b =
        std::make_shared<Backend>(std::move(spec), catalog_, timings_, [this] { on_indexed(); });
    const std::string server = b->name();
    b->set_resource_hooks({[this, server](const std::string& uri) { forward_update(server, uri); },
                           [this, server] { return resource_subs_.held_uris(server); },
                           [this, server](const Json& params) { forward_log(server, params); },
                           [this] {
                               std::lock_guard lock(log_mutex_);
                               return backend_log_level_;
                           }});
    if (publisher_) {
        b->set_publisher(publisher_);
    }
    Backend* raw = b.get();
    return {raw, HandleRelease{std::move(b), retire_signal_}};
}

std::shared_ptr<const Gateway::BackendSet> Gateway::backends() const {
    std::lock_guard lock(backends_mutex_);
    return backends_;
}

std::shared_ptr<const PinnedTools> Gateway::pinned() const {
    std::lock_guard lock(backends_mutex_);
    return pinned_;
}

std::shared_ptr<Backend> Gateway::backend(const std::string& server) const {
    const auto set = backends();
    for (const auto& b : *set) {
        if (b->name() == server) {
            return b;
        }
    }
    return nullptr;
}

std::shared_ptr<std::mutex> Gateway::subscription_lock(const std::string& server) {
    std::lock_guard lock(backends_mutex_);
    auto& slot = subscription_locks_[server];
    if (!slot) {
        slot = std::make_shared<std::mutex>();
    }
    return slot;
}

void Gateway::set_pinned(PinnedTools pinned) {
    auto shared = std::make_shared<const PinnedTools>(std::move(pinned));
    std::lock_guard lock(backends_mutex_);
    pinned_ = std::move(shared);
}

void Gateway::start(std::chrono::milliseconds wait) {
    startup_deadline_ = std::chrono::steady_clock::now() + wait;
    std::shared_ptr<const BackendSet> set;
    {
        std::lock_guard lock(backends_mutex_);
        launched_ = true;
        set = backends_;
    }
    for (const auto& b : *set) {
        b->start();
    }
    if (set->empty()) {
        return;
    }
    // Once every first attempt is over (or the start-up wait has passed): a gateway none of whose
    // backends came up serves nothing, which deserves more than the backends' own warnings. On a
    // thread of its own (joined at shutdown, whose request_stop ends its waits), not the call
    // pool's: it must not take a slot a client's call could have.
    try {
        startup_watch_ = std::thread([this, set] {
            for (const auto& b : *set) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    startup_deadline_ - std::chrono::steady_clock::now());
                (void)b->wait_first_attempt(std::max(left, std::chrono::milliseconds(0)));
            }
            const auto up = std::count_if(set->begin(), set->end(), [](const auto& b) {
                return std::string_view(b->state()) == "active";
            });
            const bool stopping = std::any_of(set->begin(), set->end(), [](const auto& b) {
                return std::string_view(b->state()) == "stopped";
            });
            if (up == 0 && !stopping) {
                log_line(LogLevel::error,
                         "no backend started (" + std::to_string(set->size()) +
                             " configured): tool_search finds nothing until one does; see the "
                             "warnings above");
            }
        });
    } catch (const std::system_error&) {
        // No thread to spare: the backends' own warnings still say what failed.
    }
}

ReloadReport Gateway::reload(std::vector<BackendSpec> backends, PinnedTools pinned) {
    ReloadReport report;
    std::vector<std::shared_ptr<Backend>> retired;
    std::vector<std::shared_ptr<Backend>> to_start;
    bool launched = false;
    {
        std::lock_guard lock(backends_mutex_);
        launched = launched_;
        std::map<std::string, std::shared_ptr<Backend>> running;
        for (const auto& b : *backends_) {
            running.emplace(b->name(), b);
        }
        auto next = std::make_shared<BackendSet>();
        for (BackendSpec& spec : backends) {
            auto old = running.find(spec.name);
            if (old != running.end() && old->second->spec() == spec) {
                next->push_back(old->second);
                ++report.kept;
            } else {
                (old == running.end() ? report.added : report.restarted).push_back(spec.name);
                if (old != running.end()) {
                    retired.push_back(old->second);
                }
                next->push_back(make_backend(std::move(spec)));
                to_start.push_back(next->back());
            }
            if (old != running.end()) {
                running.erase(old);
            }
        }
        for (auto& [name, b] : running) {  // what is left was removed
            report.removed.push_back(name);
            retired.push_back(std::move(b));
        }
        report.pinned_changed = !(*pinned_ == pinned);
        backends_ = std::move(next);
        pinned_ = std::make_shared<const PinnedTools>(std::move(pinned));
    }
    // Retired first: a replaced backend must not write its listing over its successor's.
    retire(std::move(retired), report.removed);
    if (launched) {
        for (const auto& b : to_start) {
            b->start();
        }
    }
    if (report.pinned_changed || !report.removed.empty()) {
        on_indexed();  // tools/list may have changed; the added backends announce their own
    }
    return report;
}

void Gateway::retire(std::vector<std::shared_ptr<Backend>> retired,
                     std::vector<std::string> dropped) {
    // The retirer owns each Backend and watches its handle: the handle expires when the last
    // call holding it ends, and its deleter wakes the retirer.
    struct Retiree {
        std::shared_ptr<Backend> owner;
        std::weak_ptr<Backend> handle;
    };
    std::vector<Retiree> retirees;
    for (auto& b : retired) {
        b->retire();
        const auto* release = std::get_deleter<HandleRelease>(b);
        retirees.push_back({release != nullptr ? release->owner : b, b});
    }
    retired.clear();  // before the signal's lock: a last handle's deleter takes it
    drop_listings(dropped);
    if (retirees.empty()) {
        return;
    }
    RetireSignal& signal = *retire_signal_;
    std::unique_lock guard(signal.mutex);
    if (signal.now) {  // shut down already: nothing is in flight any more
        guard.unlock();
        for (const auto& r : retirees) {
            r.owner->stop();
        }
        return;
    }
    // Bounded: a call in flight ends by the call timeout (a backend's own wait, then ours).
    const auto deadline =
        std::chrono::steady_clock::now() + timings_.call_timeout + timings_.request_timeout;
    signal.retirers.emplace_back(
        [this, &signal, retirees = std::move(retirees), dropped = std::move(dropped), deadline] {
            for (const auto& r : retirees) {
                std::unique_lock lock(signal.mutex);
                signal.cv.wait_until(
                    lock, deadline, [&] { return r.handle.expired() || signal.now; });
                lock.unlock();
                r.owner->stop();
            }
            // A listing that raced the first removal (the backend indexing as it retired).
            drop_listings(dropped);
            log_line("reload: " + std::to_string(retirees.size()) +
                     (retirees.size() == 1 ? " retired backend" : " retired backends") +
                     " stopped");
        });
}

void Gateway::drop_listings(const std::vector<std::string>& servers) {
    if (servers.empty() || publisher_) {
        return;  // with a registry the listings are the registry's, shared with other replicas
    }
    bool changed = false;
    for (const std::string& server : servers) {
        changed = catalog_.remove_server(server).ok() || changed;
    }
    if (!changed) {
        return;
    }
    if (auto info = catalog_.commit(); !info) {
        log_line("commit failed: " + info.status().to_string());
    }
}

void Gateway::wait_started() {
    if (started_.load()) {
        return;
    }
    std::lock_guard lock(startup_mutex_);  // one thread waits (and logs); the others wait for it
    if (started_.load()) {
        return;
    }
    const auto set = backends();
    for (const auto& b : *set) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            startup_deadline_ - std::chrono::steady_clock::now());
        if (!b->wait_first_attempt(std::max(left, std::chrono::milliseconds(0)))) {
            log_line("backend '" + detail::printable(b->name()) +
                     "' is still starting; serving without it for now");
        }
    }
    started_.store(true);
}

void Gateway::shutdown() {
    std::call_once(shutdown_once_, [this] {
        {
            std::lock_guard lock(retire_signal_->mutex);
            retire_signal_->now = true;
        }
        retire_signal_->cv.notify_all();
        const auto set = backends();
        for (const auto& b : *set) {
            b->request_stop();
        }
        // In parallel: each stop may take its full StopGraces with a backend that ignores EOF
        // and SIGTERM, and the whole shutdown must stay within that once.
        std::vector<std::thread> stoppers;
        for (const auto& b : *set) {
            try {
                stoppers.emplace_back([&b] { b->stop(); });
            } catch (const std::system_error&) {
                b->stop();
            }
        }
        for (auto& t : stoppers) {
            t.join();
        }
        if (startup_watch_.joinable()) {
            startup_watch_.join();  // its waits ended with request_stop
        }
        std::vector<std::thread> retirers;
        {
            std::lock_guard lock(retire_signal_->mutex);
            retirers.swap(retire_signal_->retirers);
        }
        for (auto& t : retirers) {
            t.join();
        }
        pool_.shutdown();  // calls in flight have failed with the backends; their answers go out
        // A graceful end of each subscription, after the last answers.
        std::unordered_map<std::string, Json> open;
        {
            std::lock_guard lock(subscriptions_mutex_);
            open.swap(subscriptions_);
        }
        for (const auto& [key, id] : open) {
            write_(to_line(modern::listen_closed(id)), Wait::never);
        }
    });
}

void Gateway::on_indexed() {
    for (const auto& listener : listeners_) {
        listener();
    }
    std::vector<Json> subscribers;
    {
        std::lock_guard lock(subscriptions_mutex_);
        for (const auto& [key, id] : subscriptions_) {
            subscribers.push_back(id);
        }
    }
    const bool legacy = client_initialized_.load();
    if (!legacy && subscribers.empty()) {
        return;
    }
    // Clients re-fetch tools/list on this notification; send it only when the answer changed.
    std::string now = to_line(list_result(meta_));
    {
        std::lock_guard lock(list_mutex_);
        if (now == last_list_) {
            return;
        }
        last_list_ = std::move(now);
    }
    if (legacy) {
        write_(to_line(make_notification("notifications/tools/list_changed")), Wait::never);
    }
    // The modern era sends change notifications only on an opted-in subscription, tagged.
    for (const Json& id : subscribers) {
        write_(to_line(modern::tools_list_changed(id)), Wait::never);
    }
}

void Gateway::handle_oversized(std::size_t bytes, std::size_t limit) {
    reply(make_error(nullptr,
                     kInvalidRequest,
                     "Invalid Request: a message of " + std::to_string(bytes) +
                         " bytes is over the limit of " + std::to_string(limit) + " bytes"));
}

void Gateway::handle_line(const std::string& line) {
    Message m = classify(line);
    switch (m.kind) {
        case MessageKind::parse_error:
            reply(make_error(nullptr, kParseError, m.error));
            return;
        case MessageKind::invalid:
            reply(make_error(m.id, kInvalidRequest, m.error));
            return;
        case MessageKind::response:
            // An answer to a backend's request relayed during a call (others are ignored).
            (void)stdio_answers_->deliver(
                m.id,
                m.too_deep ? make_error(m.id, kInvalidRequest, "the answer is nested too deep")
                           : std::move(m.body));
            return;
        case MessageKind::notification:
            if (m.method == "notifications/initialized") {
                client_initialized_.store(true);
            } else if (m.method == "notifications/cancelled") {
                cancel_call(m.body.value("params", Json::object()));
                close_subscription(m.body.value("params", Json::object()));
            }
            return;  // others need no answer
        case MessageKind::request:
            break;
    }
    // The era is decided per message: initialize is legacy (unless it names the modern
    // version, which has no initialize), an envelope in _meta is modern.
    const bool modern_request = m.method == "initialize"
                                    ? modern::envelope_version(m.body) == modern::kProtocolVersion
                                    : modern::carries_envelope(m.body);
    if (modern_request) {
        handle_modern(m, line.size());
        return;
    }
    if (m.method != "initialize" && m.method != "ping" && !initialize_seen_.load()) {
        reply(make_error(m.id,
                         kInvalidRequest,
                         "Invalid Request: the session is not initialized; send initialize first"));
        return;
    }
    if (m.method == "tools/call" || m.method.rfind("resources/", 0) == 0 ||
        m.method.rfind("prompts/", 0) == 0 || m.method == "logging/setLevel" ||
        m.method == "completion/complete") {
        start_call(m, line.size());
        return;
    }
    if (m.method == "tools/list") {
        if (started_.load()) {
            list_tools(m.id, Wait::never);
        } else if (!pool_.submit([this, id = m.id] {
                       wait_started();
                       list_tools(id, Wait::allowed);
                   })) {
            reply(make_error(m.id, kServerBusy, "Server busy: too many requests in flight"));
        }
        return;
    }
    reply(handle_request(m));
}

Json Gateway::list_result(const mcp::MetaTools& tools) {
    const Searcher searcher = catalog_.searcher();
    Json list = tools.list_tools(searcher);
    const auto pinned_now = pinned();
    const PinnedTools& pinned_tools = *pinned_now;
    if (pinned_tools.empty() || !tools.injects_meta_tools(searcher)) {
        return list;  // the full list already holds every tool
    }
    for (const Hit& hit : searcher.list_tools(tools.scope_options(mcp::Scope::all_servers))) {
        const bool pinned =
            std::find(pinned_tools.servers.begin(), pinned_tools.servers.end(), hit.server) !=
                pinned_tools.servers.end() ||
            std::any_of(
                pinned_tools.tools.begin(), pinned_tools.tools.end(), [&hit](const ToolKey& k) {
                    return k.server == hit.server && k.tool == hit.tool;
                });
        if (pinned) {
            list["tools"].push_back(mcp::tool_definition(hit));
        }
    }
    return list;
}

void Gateway::list_tools(const Json& id, Wait wait) {
    Json list = list_result(meta_);
    {
        std::lock_guard lock(list_mutex_);
        last_list_ = to_line(list);
    }
    write_(to_line(make_result(id, std::move(list))), wait);
}

void Gateway::handle_modern(const Message& m, std::size_t bytes) {
    if (auto error = modern::check_envelope(m.body)) {
        reply(modern::error_response(m.id, *error));
        return;
    }
    if (m.method == "subscriptions/listen") {
        open_subscription(m);
        return;
    }
    if (m.method == "server/discover" || !modern::serves_method(m.method)) {
        reply(answer_modern(m, meta_, nullptr, false));  // answered without a backend
        return;
    }
    start_call(m, bytes, true);
}

void Gateway::open_subscription(const Message& m) {
    Json honoured;
    if (auto error = modern::check_listen(m.body, honoured)) {
        reply(modern::error_response(m.id, *error));
        return;
    }
    const bool tools = honoured.contains("toolsListChanged");
    {
        std::lock_guard lock(subscriptions_mutex_);
        // Subscriptions are few; a client opening more than this is refused, not remembered.
        constexpr std::size_t kMaxSubscriptions = 64;
        if (subscriptions_.size() >= kMaxSubscriptions) {
            reply(make_error(m.id, kServerBusy, "Server busy: too many open subscriptions"));
            return;
        }
        if (tools && !subscriptions_.emplace(m.id.dump(), m.id).second) {
            reply(make_error(
                m.id, kInvalidRequest, "Invalid Request: a subscription with this id is open"));
            return;
        }
        // Under the lock: on_indexed reads the subscribers under it too, so no change
        // notification can overtake the acknowledgement.
        reply(modern::acknowledged(m.id, honoured));
    }
    if (!tools) {  // nothing the gateway will ever send on it: end it at once
        reply(modern::listen_closed(m.id));
    }
}

void Gateway::close_subscription(const Json& params) {
    auto id = params.is_object() ? params.find("requestId") : params.end();
    if (!params.is_object() || id == params.end()) {
        return;
    }
    std::lock_guard lock(subscriptions_mutex_);
    subscriptions_.erase(id->dump());  // MCP: a cancelled request gets no answer
}

Json Gateway::answer_modern(const Message& m,
                            const mcp::MetaTools& tools,
                            const std::shared_ptr<CancelToken>& cancel,
                            bool per_caller) {
    if (auto error = modern::check_envelope(m.body)) {
        return modern::error_response(m.id, *error);
    }
    if (!modern::serves_method(m.method) || m.method == "subscriptions/listen") {
        return make_error(m.id,
                          kMethodNotFound,
                          "Method not found: " + detail::clipped(m.method) +
                              " (not served in protocol revision " + modern::kProtocolVersion +
                              ")");
    }
    if (m.method == "server/discover") {
        // Resource subscriptions and logging/setLevel are passed through in the legacy era only.
        Json init = initialize(Json::object());
        init["capabilities"]["resources"].erase("subscribe");
        init["capabilities"].erase("logging");
        return make_result(m.id, modern::discover_result(init, per_caller));
    }
    Json response = answer(m, tools, cancel);
    if (auto result = response.find("result"); result != response.end()) {
        modern::finish_result(m.method, *result, per_caller);
    }
    return response;
}

void Gateway::start_call(const Message& m, std::size_t bytes, bool modern) {
    const std::string key = m.id.dump();
    auto token = std::make_shared<CancelToken>();
    const char* refusal = nullptr;
    {
        std::lock_guard lock(calls_mutex_);
        if (call_bytes_ + bytes > limits_.bytes_in_flight) {
            refusal = "Server busy: too many call bytes in flight";
        } else if (!calls_.emplace(key, token).second) {
            refusal = "Invalid Request: a call with this id is in flight";
        } else {
            call_bytes_ += bytes;
        }
    }
    if (refusal != nullptr) {
        reply(make_error(m.id, refusal[0] == 'S' ? kServerBusy : kInvalidRequest, refusal));
        return;
    }
    auto finish = [this, key, bytes] {
        std::lock_guard lock(calls_mutex_);
        calls_.erase(key);
        call_bytes_ -= bytes;
    };
    auto job = [this, m, token, finish, modern] {
        Json answer;
        if (!token->cancelled()) {
            if (modern) {
                answer = answer_modern(m, meta_, token, false);
            } else if (m.method == "tools/call") {
                CallerChannel caller = stdio_channel(m);
                answer = this->answer(m, meta_, token, kStdioClient, &caller);
            } else {
                answer = this->answer(m, meta_, token);
            }
        }
        finish();
        if (!token->cancelled()) {  // MCP: a cancelled request gets no answer
            write_(to_line(answer), Wait::allowed);
        }
    };
    if (!pool_.submit(std::move(job))) {
        finish();
        reply(make_error(m.id, kServerBusy, "Server busy: too many calls in flight"));
    }
}

void Gateway::cancel_call(const Json& params) {
    auto id = params.is_object() ? params.find("requestId") : params.end();
    if (!params.is_object() || id == params.end() ||
        !(id->is_string() || id->is_number_integer())) {
        return;
    }
    std::shared_ptr<CancelToken> token;
    {
        std::lock_guard lock(calls_mutex_);
        if (auto it = calls_.find(id->dump()); it != calls_.end()) {
            token = it->second;
        }
    }
    if (token) {
        const Json reason = params.value("reason", Json());
        token->cancel(reason.is_string() ? detail::clipped(reason.get<std::string>(), 200)
                                         : std::string("cancelled"));
    }
}

CallerChannel Gateway::stdio_channel(const Message& m) {
    CallerChannel caller;
    caller.send = [this](const std::string& line) {
        write_(line, Wait::never);  // full output: dropped, as list_changed notifications are
        return true;
    };
    caller.answers = stdio_answers_;
    caller.sampling = stdio_sampling_.load();
    caller.elicitation = stdio_elicitation_.load();
    caller.progress_token = progress_token_of(m);
    return caller;
}

Json Gateway::answer(const Message& m,
                     const mcp::MetaTools& tools,
                     const std::shared_ptr<CancelToken>& cancel,
                     const std::string& client,
                     CallerChannel* caller) {
    if (m.method == "tools/list") {
        wait_started();
        return make_result(m.id, list_result(tools));
    }
    if (m.method == "tools/call") {
        wait_started();
        if (caller != nullptr) {  // the level this caller set, if any, filters its messages
            std::lock_guard lock(log_mutex_);
            auto it = log_clients_.find(client);
            caller->log_severity =
                it == log_clients_.end() ? -1 : log_severity(Json(it->second.level));
        }
        return call_tool(m.id, m.body.value("params", Json::object()), tools, cancel, caller);
    }
    if (m.method.rfind("resources/", 0) == 0 || m.method.rfind("prompts/", 0) == 0) {
        wait_started();
        return pass_through(m, tools, cancel, client);
    }
    if (m.method == "logging/setLevel") {
        return set_logging_level(m, tools, cancel, client);
    }
    if (m.method == "completion/complete") {
        wait_started();
        return complete(m, tools, cancel);
    }
    if (m.method == "initialize") {
        // Each HTTP session initializes on its own; the stdio flags are not this caller's.
        return make_result(m.id, initialize(m.body.value("params", Json::object())));
    }
    return handle_request(m);
}

std::string Gateway::metrics_text() {
    return metrics_text(std::nullopt);
}

std::string Gateway::metrics_text(const std::optional<std::vector<std::string>>& visible_servers) {
    std::vector<std::pair<std::string, std::string>> states;
    const auto set = backends();
    for (const auto& b : *set) {
        const bool visible = !visible_servers || std::find(visible_servers->begin(),
                                                           visible_servers->end(),
                                                           b->name()) != visible_servers->end();
        if (visible) {
            states.emplace_back(b->name(), b->state());
        }
    }
    std::string text = metrics_.render(states, visible_servers);
    if (extra_metrics_) {
        text += extra_metrics_();
    }
    return text;
}

void Gateway::set_publisher(const Backend::Publisher& publisher) {
    publisher_ = publisher;  // for the backends a reload adds
    const auto set = backends();
    for (const auto& b : *set) {
        b->set_publisher(publisher);
    }
}

Gateway::Readiness Gateway::readiness() {
    std::map<std::string, int> states{
        {"starting", 0}, {"active", 0}, {"degraded", 0}, {"stopped", 0}};
    const auto set = backends();
    for (const auto& b : *set) {
        ++states[b->state()];
    }
    // As wait_started() decides, without waiting: every first attempt is over, or the start-up
    // wait has passed and the gateway serves without the slow ones.
    const bool started = started_.load() || states["starting"] == 0 ||
                         std::chrono::steady_clock::now() >= startup_deadline_;
    const Searcher searcher = catalog_.searcher();
    const char* embedder = "active";
    if (meta_.connector().mode == Mode::bm25) {
        embedder = "none";
    } else if (searcher.size() > 0 && !searcher.has_dense()) {
        embedder = "degraded";
    }
    Json backends = Json::object();
    for (const auto& [state, n] : states) {
        backends[state] = n;
    }
    Readiness r;
    r.ready = started;
    r.body = Json{{"status", started ? "ready" : "starting"},
                  {"tools", searcher.size()},
                  {"generation", searcher.generation()},
                  {"backends", std::move(backends)},
                  {"embedder", embedder}};
    return r;
}

Json Gateway::handle_request(const Message& m) {
    const Json params = m.body.value("params", Json::object());
    if (m.method == "initialize") {
        initialize_seen_.store(true);
        stdio_sampling_.store(declares_capability(params, "sampling"));
        stdio_elicitation_.store(declares_capability(params, "elicitation"));
        return make_result(m.id, initialize(params));
    }
    if (m.method == "ping") {
        return make_result(m.id, Json::object());
    }
    return make_error(m.id, kMethodNotFound, "Method not found: " + detail::clipped(m.method));
}

Json Gateway::initialize(const Json& params) {
    std::string version = kSupportedProtocolVersions[0];
    if (auto asked = params.is_object() ? params.find("protocolVersion") : params.end();
        params.is_object() && asked != params.end()) {
        for (const char* v : kSupportedProtocolVersions) {
            if (*asked == v) {
                version = v;
            }
        }
    }
    return Json{{"protocolVersion", version},
                {"capabilities",
                 {{"tools", {{"listChanged", true}}},
                  // Advertised whatever the backends offer: a backend without it refuses.
                  {"resources", {{"subscribe", true}}},
                  {"prompts", Json::object()},
                  // completion/complete goes to the server that owns the prompt or template.
                  {"completions", Json::object()},
                  // logging/setLevel goes to the backends that log; their messages come back.
                  {"logging", Json::object()}}},
                {"serverInfo",
                 {{"name", "scout-gateway"}, {"title", "scout MCP gateway"}, {"version", "0.1.0"}}},
                {"instructions",
                 "This gateway fronts many MCP servers. Use tool_search to find a tool, then "
                 "execute_tool with the exact tool_name and server_name it returns."}};
}

Json Gateway::call_tool(const Json& id,
                        const Json& params,
                        const mcp::MetaTools& tools,
                        const std::shared_ptr<CancelToken>& cancel,
                        const CallerChannel* caller) {
    auto name = params.is_object() ? params.find("name") : params.end();
    if (!params.is_object() || name == params.end() || !name->is_string()) {
        return make_error(id, kInvalidParams, "tools/call needs params.name (a string)");
    }
    Json arguments = params.value("arguments", Json::object());
    const Searcher searcher = catalog_.searcher();
    std::string called = name->get<std::string>();
    // A backend tool called by its own name ("name" or "server/name") rather than through
    // execute_tool: the same execution, so the same scope, argument check, limits and learning.
    if (called != mcp::kToolSearch && called != mcp::kExecuteTool &&
        !tools.lookup(searcher, called, {})) {
        std::vector<ToolKey> found = direct_tools(tools, searcher, called);
        if (found.size() != 1) {
            std::vector<std::string> qualified;
            qualified.reserve(found.size());
            for (const ToolKey& k : found) {
                qualified.push_back(k.server + "/" + k.tool);
            }
            return make_error(id,
                              kInvalidParams,
                              found.empty() ? "Unknown tool '" + detail::clipped(called) +
                                                  "': no server in scope offers it; call "
                                                  "tool_search to find one"
                                            : ambiguous_name_message("tool", called, qualified));
        }
        arguments = Json{{"tool_name", found[0].tool},
                         {"server_name", found[0].server},
                         {"arguments", std::move(arguments)}};
        called = mcp::kExecuteTool;
    }
    const bool learn = meta_.connector().outcome_prior;
    // Arguments that break the tool's inputSchema never reach its backend: the call is answered
    // -32602 naming the field at fault (the executor says so through `invalid`).
    std::optional<std::string> invalid;
    auto executor = [this, &cancel, caller, learn, &invalid](const ToolKey& key,
                                                             const Json& args) -> Result<Json> {
        if (auto problem = schema_problem(key, args)) {
            invalid = "Invalid params for " + detail::clipped(key.server + "/" + key.tool, 120) +
                      ": " + *problem;
            return Status{Errc::invalid_argument, *invalid};
        }
        Result<Json> result = execute(key, args, cancel, caller);
        if (learn) {
            outcomes_.record(catalog_, key, result && !result->value("isError", false));
        }
        return result;
    };
    const bool search = called == mcp::kToolSearch;
    t_caller_fallbacks = search ? 0 : -1;
    const auto began = std::chrono::steady_clock::now();
    Json answer = tools.call_tool(searcher, called, arguments, executor);
    const bool fell_back = t_caller_fallbacks > 0;
    t_caller_fallbacks = -1;
    if (invalid) {
        return make_error(id, kInvalidParams, *invalid);
    }
    if (search) {
        metrics_.record_search(
            std::chrono::steady_clock::now() - began, is_error_result(answer), fell_back);
        if (learn) {
            outcomes_.remember(arguments, answer);
        }
    }
    return make_result(id, std::move(answer));
}

std::vector<ToolKey> Gateway::direct_tools(const mcp::MetaTools& tools,
                                           const Searcher& searcher,
                                           const std::string& name) {
    std::vector<ToolKey> found;
    for (const auto& b : backends_in_scope(tools)) {
        const std::string& server = b->name();
        // "server/name" names one server's tool; a bare name may be any server's.
        const bool prefixed = name.size() > server.size() + 1 &&
                              name.compare(0, server.size(), server) == 0 &&
                              name[server.size()] == '/';
        if (prefixed) {
            if (auto hit = tools.lookup(searcher, name.substr(server.size() + 1), server)) {
                return {ToolKey{hit->server, hit->tool}};
            }
        }
        if (auto hit = searcher.find(server, name);
            hit && tools.lookup(searcher, hit->tool, hit->server)) {  // lookup: the scope rule
            found.push_back(ToolKey{hit->server, hit->tool});
        }
    }
    return found;
}

std::optional<std::string> Gateway::schema_problem(const ToolKey& key, const Json& arguments) {
    const auto tool = catalog_.searcher().find(key.server, key.tool);
    if (!tool || tool->input_schema.empty()) {
        return std::nullopt;  // unknown here (the backend answers) or no schema: nothing to hold
    }
    auto schema = detail::parse_json(tool->input_schema);
    if (!schema) {
        return std::nullopt;
    }
    return check_arguments(*schema, arguments);
}

Result<Json> Gateway::execute(const ToolKey& key,
                              const Json& arguments,
                              const std::shared_ptr<CancelToken>& cancel,
                              const CallerChannel* caller) {
    // Held to the end of the call: a reload that removes the backend meanwhile stops it after.
    if (const auto b = backend(key.server)) {
        auto result = b->call_tool(key.tool, arguments, cancel, caller);
        metrics_.record_call(key.server, key.tool, !result || is_error_result(*result));
        return result;
    }
    return Status{Errc::not_found, "no backend named '" + detail::printable(key.server) + "'"};
}

}  // namespace scout::gateway

namespace scout::gateway {

std::vector<std::shared_ptr<Backend>> Gateway::backends_in_scope(const mcp::MetaTools& tools) {
    // The rule tool_search and execute_tool apply (SearchOptions of the caller's connector).
    const SearchOptions scope = tools.scope_options(mcp::Scope::all_servers);
    std::vector<std::shared_ptr<Backend>> out;
    const auto set = backends();
    for (const auto& b : *set) {
        const bool server_ok =
            !scope.servers || std::find(scope.servers->begin(), scope.servers->end(), b->name()) !=
                                  scope.servers->end();
        const bool environment_ok = !scope.environment || *scope.environment == b->environment();
        if (server_ok && environment_ok) {
            out.push_back(b);
        }
    }
    return out;
}

Json Gateway::pass_through(const Message& m,
                           const mcp::MetaTools& tools,
                           const std::shared_ptr<CancelToken>& cancel,
                           const std::string& client) {
    const Json params = m.body.value("params", Json::object());
    if (!params.is_object()) {
        return make_error(m.id, kInvalidParams, "params must be an object");
    }
    const auto in_scope = backends_in_scope(tools);
    // Listings: every backend in scope, names and URIs prefixed with the server's name. A
    // backend without the capability (or down) is left out rather than failing the listing.
    struct Listing {
        const char* method;
        const char* field;
        const char* key;  ///< the member that gets the prefix
    };
    static constexpr Listing kListings[] = {
        {"resources/list", "resources", "uri"},
        {"resources/templates/list", "resourceTemplates", "uriTemplate"},
        {"prompts/list", "prompts", "name"},
    };
    for (const Listing& l : kListings) {
        if (m.method != l.method) {
            continue;
        }
        Json items = Json::array();
        for (const auto& b : in_scope) {
            for (Json& item : listed(*b, l.method, l.field, l.key, cancel)) {
                Json& k = item[l.key];
                k = std::string(l.key) == "name" ? b->name() + "/" + k.get<std::string>()
                                                 : prefixed_uri(b->name(), k.get<std::string>());
                items.push_back(std::move(item));
            }
        }
        return make_result(m.id, Json{{l.field, std::move(items)}});
    }
    // One item: the prefix names the backend; it gets its own name or URI back.
    const bool subscription =
        m.method == "resources/subscribe" || m.method == "resources/unsubscribe";
    const bool is_read = m.method == "resources/read" || subscription;
    if (!is_read && m.method != "prompts/get") {
        return make_error(m.id, kMethodNotFound, "Method not found: " + detail::clipped(m.method));
    }
    const char* key = is_read ? "uri" : "name";
    auto given = params.find(key);
    if (given == params.end() || !given->is_string()) {
        return make_error(m.id, kInvalidParams, m.method + " needs params." + key + " (a string)");
    }
    const std::string& asked = given->get_ref<const std::string&>();
    std::string_view value = asked;
    // The gateway's own names: "server/name" for a prompt, "scout-gateway://server/uri" for a
    // resource. Anything else is the backend's own name, taken when one server in scope has it.
    const bool prefixed = !is_read || value.substr(0, kUriScheme.size()) == kUriScheme;
    if (is_read && prefixed) {
        value.remove_prefix(kUriScheme.size());
    }
    std::shared_ptr<Backend> owner;
    std::string inner;
    for (const auto& b : in_scope) {
        const std::string& server = b->name();
        if (prefixed && value.size() > server.size() && value.substr(0, server.size()) == server &&
            value[server.size()] == '/') {
            owner = b;
            inner = std::string(value.substr(server.size() + 1));
            break;
        }
    }
    if (!owner && !(is_read && prefixed)) {
        std::vector<std::shared_ptr<Backend>> owners =
            bare_owners(in_scope, is_read, asked, cancel);
        if (owners.size() > 1) {
            std::vector<std::string> qualified;
            qualified.reserve(owners.size());
            for (const auto& b : owners) {
                qualified.push_back(is_read ? prefixed_uri(b->name(), asked)
                                            : b->name() + "/" + asked);
            }
            return make_error(
                m.id,
                kInvalidParams,
                ambiguous_name_message(is_read ? "resource" : "prompt", asked, qualified));
        }
        if (owners.size() == 1) {
            owner = owners[0];
            inner = asked;
        }
    }
    if (owner) {
        const std::shared_ptr<Backend>& b = owner;
        const std::string& server = b->name();
        if (subscription) {
            return change_subscription(m, *b, inner, client, cancel);
        }
        Json ask = params;
        ask[key] = inner;
        auto got = b->request(m.method, std::move(ask), cancel);
        if (!got) {
            return make_error(m.id, kInternalError, got.status().message());
        }
        if (is_read && prefixed) {  // the contents name the URI the client asked for
            if (auto contents = got->find("contents");
                contents != got->end() && contents->is_array()) {
                for (Json& c : *contents) {
                    if (auto u = c.is_object() ? c.find("uri") : c.end();
                        c.is_object() && u != c.end() && u->is_string()) {
                        *u = prefixed_uri(server, u->get<std::string>());
                    }
                }
            }
        }
        return make_result(m.id, std::move(got.value()));
    }
    return make_error(m.id,
                      kInvalidParams,
                      std::string(is_read ? "Unknown resource" : "Unknown prompt") +
                          ": no server in scope owns '" + detail::clipped(asked) + "'");
}

std::vector<Json> Gateway::listed(Backend& backend,
                                  const char* method,
                                  const char* field,
                                  const char* key,
                                  const std::shared_ptr<CancelToken>& cancel) {
    std::vector<Json> items;
    Json cursor;
    for (int page = 0; page < kMaxPassThroughPages; ++page) {
        Json ask = Json::object();
        if (!cursor.is_null()) {
            ask["cursor"] = cursor;
        }
        auto got = backend.request(method, std::move(ask), cancel);
        if (!got) {
            break;
        }
        auto list = got->find(field);
        if (list != got->end() && list->is_array()) {
            for (Json& item : *list) {
                auto k = item.is_object() ? item.find(key) : item.end();
                if (item.is_object() && k != item.end() && k->is_string()) {
                    items.push_back(std::move(item));
                }
            }
        }
        auto next = got->find("nextCursor");
        if (next == got->end() || !next->is_string()) {
            break;
        }
        cursor = *next;
    }
    return items;
}

std::vector<std::shared_ptr<Backend>> Gateway::bare_owners(
    const std::vector<std::shared_ptr<Backend>>& in_scope,
    bool resource,
    const std::string& name,
    const std::shared_ptr<CancelToken>& cancel) {
    std::vector<std::shared_ptr<Backend>> owners;
    auto offers =
        [&](Backend& b, const char* method, const char* field, const char* key, bool templated) {
            for (const Json& item : listed(b, method, field, key, cancel)) {
                const std::string& listed_name = item[key].get_ref<const std::string&>();
                if (templated ? uri_template_matches(listed_name, name) : listed_name == name) {
                    return true;
                }
            }
            return false;
        };
    for (const auto& b : in_scope) {
        if (resource ? offers(*b, "resources/list", "resources", "uri", false)
                     : offers(*b, "prompts/list", "prompts", "name", false)) {
            owners.push_back(b);
        }
    }
    if (!resource || !owners.empty()) {
        return owners;
    }
    // A concrete URI of a resource template (a backend lists its templates, not their URIs).
    for (const auto& b : in_scope) {
        if (offers(*b, "resources/templates/list", "resourceTemplates", "uriTemplate", true)) {
            owners.push_back(b);
        }
    }
    return owners;
}

}  // namespace scout::gateway

namespace scout::gateway {

Json Gateway::change_subscription(const Message& m,
                                  Backend& backend,
                                  const std::string& uri,
                                  const std::string& client,
                                  const std::shared_ptr<CancelToken>& cancel) {
    const ResourceSubscriptions::Resource resource{backend.name(), uri};
    // Subscriptions change rarely: one at a time per backend keeps its state in step with ours.
    const auto order = subscription_lock(backend.name());
    std::lock_guard lock(*order);
    if (m.method == "resources/unsubscribe") {
        if (resource_subs_.remove(client, resource) == ResourceSubscriptions::Removed::last) {
            // The client is unsubscribed whatever the backend answers: no update reaches it.
            if (auto done = backend.request(m.method, Json{{"uri", uri}}, cancel); !done) {
                log_line("backend '" + detail::printable(backend.name()) +
                         "' resources/unsubscribe failed: " + done.status().message());
            }
        }
        return make_result(m.id, Json::object());
    }
    if (!backend.accepts_resource_subscriptions()) {
        return make_error(m.id,
                          kMethodNotFound,
                          "Method not found: server '" + detail::printable(backend.name()) +
                              "' does not offer resources/subscribe");
    }
    switch (resource_subs_.add(client, resource)) {
        case ResourceSubscriptions::Added::too_many:
            return make_error(m.id,
                              kInvalidRequest,
                              "Invalid Request: a client holds at most " +
                                  std::to_string(resource_subs_.per_client()) +
                                  " resource subscriptions; unsubscribe from one first");
        case ResourceSubscriptions::Added::held:
        case ResourceSubscriptions::Added::shared:
            return make_result(m.id, Json::object());
        case ResourceSubscriptions::Added::first:
            break;
    }
    auto done = backend.request(m.method, Json{{"uri", uri}}, cancel);
    if (!done) {
        (void)resource_subs_.remove(client, resource);
        return make_error(m.id, kInternalError, done.status().message());
    }
    return make_result(m.id, Json::object());
}

Json Gateway::set_logging_level(const Message& m,
                                const mcp::MetaTools& tools,
                                const std::shared_ptr<CancelToken>& cancel,
                                const std::string& client) {
    const Json params = m.body.value("params", Json::object());
    const Json level = params.is_object() ? params.value("level", Json()) : Json();
    if (log_severity(level) < 0) {
        return make_error(m.id,
                          kInvalidParams,
                          "logging/setLevel needs params.level: debug, info, notice, warning, "
                          "error, critical, alert or emergency");
    }
    const auto in_scope = backends_in_scope(tools);
    {
        std::lock_guard lock(log_mutex_);
        LogClient& c = log_clients_[client];
        c.level = level.get<std::string>();
        c.servers.clear();
        for (const auto& b : in_scope) {
            c.servers.push_back(b->name());
        }
        backend_log_level_ = c.level;
    }
    for (const auto& b : in_scope) {
        if (!b->supports_logging()) {
            continue;
        }
        if (auto r = b->request("logging/setLevel", Json{{"level", level}}, cancel); !r) {
            log_line(LogLevel::debug,
                     "logging/setLevel not taken: " + r.status().message(),
                     {{"server", b->name()}});
        }
    }
    return make_result(m.id, Json::object());
}

void Gateway::forward_log(const std::string& server, const Json& params) {
    const int severity = log_severity(params.value("level", Json()));
    if (severity < 0) {
        return;
    }
    std::vector<std::string> sessions;
    bool stdio = false;
    {
        std::lock_guard lock(log_mutex_);
        for (const auto& [client, c] : log_clients_) {
            if (severity < log_severity(Json(c.level)) ||
                std::find(c.servers.begin(), c.servers.end(), server) == c.servers.end()) {
                continue;
            }
            if (client == kStdioClient) {
                stdio = true;
            } else {
                sessions.push_back(client);
            }
        }
    }
    if (!stdio && sessions.empty()) {
        return;
    }
    Json relayed = params;  // the logger names the backend: "server" or "server/logger"
    const Json logger = params.value("logger", Json());
    relayed["logger"] = logger.is_string() ? server + "/" + logger.get<std::string>() : server;
    const std::string line = to_line(make_notification("notifications/message", relayed));
    if (stdio) {
        write_(line, Wait::never);
    }
    if (!sessions.empty() && update_listener_) {
        update_listener_(sessions, line);
    }
}

void Gateway::end_client(const std::string& session) {
    {
        std::lock_guard lock(log_mutex_);
        log_clients_.erase(session);
    }
    std::vector<ResourceSubscriptions::Resource> orphaned = resource_subs_.end_client(session);
    if (orphaned.empty()) {
        return;
    }
    // Off the caller's thread: a backend may take its call timeout to answer.
    const bool queued = pool_.submit([this, orphaned] {
        for (const auto& [server, uri] : orphaned) {
            if (const auto b = backend(server)) {
                const auto order = subscription_lock(server);
                std::lock_guard lock(*order);
                if (resource_subs_.holders({server, uri}).empty()) {  // nobody came back since
                    (void)b->request("resources/unsubscribe", Json{{"uri", uri}});
                }
            }
        }
    });
    if (!queued) {
        log_line("ended session left " + std::to_string(orphaned.size()) +
                 " backend resource subscriptions in place (the gateway is busy or stopping)");
    }
}

void Gateway::forward_update(const std::string& server, const std::string& uri) {
    std::vector<std::string> holders = resource_subs_.holders({server, uri});
    if (holders.empty()) {
        return;  // nobody asked (or the last holder has just left)
    }
    const std::string line = to_line(make_notification("notifications/resources/updated",
                                                       Json{{"uri", prefixed_uri(server, uri)}}));
    auto stdio = std::find(holders.begin(), holders.end(), std::string(kStdioClient));
    if (stdio != holders.end()) {
        holders.erase(stdio);
        write_(line, Wait::never);
    }
    if (!holders.empty() && update_listener_) {
        update_listener_(holders, line);
    }
}

}  // namespace scout::gateway
