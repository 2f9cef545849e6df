// http_transport.cpp: see http_transport.hpp. Built on cpp-httplib (Debian's libcpp-httplib-dev):
// a thread per connection from a bounded pool, which suits a gateway whose requests mostly wait
// on a backend; every socket wait is bounded by the library's read/write timeouts.
#include "http_transport.hpp"

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

#include "log.hpp"
#include "modern_protocol.hpp"
#include "util/printable.hpp"

namespace scout::gateway {
namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kEventStream = "text/event-stream";
/// Notifications waiting for a session's event stream; older ones are dropped beyond it (they
/// only say "tools/list changed", so the newest is enough).
constexpr std::size_t kMaxQueuedEvents = 16;

/// Set on the accepting thread while it turns away a connection the pool has no room for.
thread_local bool t_overloaded = false;

/// A pool of `threads` workers with at most `queued` connections waiting. A connection beyond
/// that is still read (bounded by the read timeout) but answered 503 at once on the accepting
/// thread, so a flood costs the gateway neither threads nor memory.
class BoundedPool : public httplib::TaskQueue {
public:
    BoundedPool(std::size_t threads, std::size_t queued) : capacity_(threads + queued) {
        for (std::size_t i = 0; i < threads; ++i) {
            threads_.emplace_back([this] { work(); });
        }
    }
    void enqueue(std::function<void()> fn) override {
        {
            std::unique_lock lock(mutex_);
            // Every worker busy and `queued` jobs waiting: no room (counted from the start, before
            // the workers have even reached their first wait).
            if (jobs_.size() + busy_ < capacity_ && !shutdown_) {
                jobs_.push_back(std::move(fn));
                cv_.notify_one();
                return;
            }
        }
        t_overloaded = true;
        fn();
        t_overloaded = false;
    }
    void shutdown() override {
        {
            std::lock_guard lock(mutex_);
            shutdown_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_) {
            t.join();
        }
    }

private:
    void work() {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(mutex_);
                cv_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
                if (jobs_.empty()) {
                    return;
                }
                job = std::move(jobs_.front());
                jobs_.pop_front();
                ++busy_;
            }
            job();
            std::lock_guard lock(mutex_);
            --busy_;
        }
    }

    std::size_t capacity_;  ///< workers + queued jobs
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> jobs_;
    std::vector<std::thread> threads_;
    std::size_t busy_ = 0;  ///< workers running a job
    bool shutdown_ = false;
};

std::string random_session_id() {
    std::random_device rd;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string id;
    for (int i = 0; i < 4; ++i) {
        const std::uint32_t v = rd();
        for (int s = 0; s < 32; s += 4) {
            id += kHex[(v >> s) & 0xFU];
        }
    }
    return id;
}

bool supported_version(const std::string& v) {
    for (const char* s : kSupportedProtocolVersions) {
        if (v == s) {
            return true;
        }
    }
    return false;
}

void json_error(httplib::Response& res, int status, const Json& id, int code, std::string message) {
    res.status = status;
    res.set_content(to_line(make_error(id, code, std::move(message))), kJson);
}

mcp::Connector caller_connector(const mcp::Connector& base, const CallerScope& caller) {
    mcp::Connector c = base;
    if (caller.servers) {
        if (!c.allowed_servers) {
            c.allowed_servers = caller.servers;
        } else {  // both must allow a server
            std::vector<std::string> both;
            for (const auto& s : *caller.servers) {
                if (std::find(c.allowed_servers->begin(), c.allowed_servers->end(), s) !=
                    c.allowed_servers->end()) {
                    both.push_back(s);
                }
            }
            c.allowed_servers = std::move(both);
        }
    }
    if (!caller.environment.empty()) {
        c.environment = caller.environment;
        c.bind_environment = true;
    }
    return c;
}

/// One turn of an event stream: writes `events`, or a comment line when the stream has been
/// quiet for `ping` (so proxies keep it open). False when the client is gone.
bool send_or_ping(httplib::DataSink& sink,
                  std::string events,
                  std::chrono::steady_clock::time_point& last,
                  std::chrono::steady_clock::duration ping) {
    const auto now = std::chrono::steady_clock::now();
    if (events.empty() && now - last >= ping) {
        events = ": ping\n\n";
    }
    if (events.empty()) {
        return true;
    }
    last = now;
    return sink.write(events.data(), events.size());
}

}  // namespace

class HttpTransport::Impl {
public:
    Impl(Gateway& gateway, HttpOptions options)
        : gateway_(gateway),
          options_(std::move(options)),
          open_tools_(std::make_shared<mcp::MetaTools>(gateway.connector())) {
        if (options_.auth) {
            for (const CallerScope& c : options_.auth->callers()) {
                caller_tools_[c.name] =
                    std::make_shared<mcp::MetaTools>(caller_connector(gateway.connector(), c));
            }
        }
        // The gateway outlives this transport and its backends may still re-index after it is
        // gone: the listener reaches it through a link that the destructor cuts.
        gateway_.add_list_changed_listener([link = link_] {
            std::lock_guard lock(link->mutex);
            if (link->impl != nullptr) {
                link->impl->broadcast_list_changed();
            }
        });
        gateway_.set_resource_update_listener(
            [link = link_](const std::vector<std::string>& sessions, const std::string& line) {
                std::lock_guard lock(link->mutex);
                if (link->impl != nullptr) {
                    link->impl->deliver(sessions, line);
                }
            });
        configure();
    }

    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        std::lock_guard lock(link_->mutex);
        link_->impl = nullptr;
    }

    Status bind() {
        if (!options_.auth && !is_loopback_host(options_.address.host)) {
            return Status{Errc::invalid_argument,
                          "--listen " + options_.address.host +
                              " is not a loopback address: give --auth-file to serve other hosts"};
        }
        if (options_.address.port == 0) {
            port_ = server_.bind_to_any_port(options_.address.host);
            if (port_ <= 0) {
                return Status{Errc::io_error, "cannot bind " + options_.address.host};
            }
        } else if (!server_.bind_to_port(options_.address.host, options_.address.port)) {
            return Status{Errc::io_error,
                          "cannot bind " + options_.address.host + ":" +
                              std::to_string(options_.address.port)};
        } else {
            port_ = options_.address.port;
        }
        return {};
    }

    [[nodiscard]] int port() const { return port_; }

    void serve() { server_.listen_after_bind(); }

    void stop() {
        std::vector<std::shared_ptr<Session>> sessions;
        {
            std::lock_guard lock(sessions_mutex_);
            stopping_ = true;
            for (auto& [id, s] : sessions_) {
                sessions.push_back(s);
            }
            sessions_.clear();
        }
        for (auto& s : sessions) {
            close_session(*s);
        }
        std::vector<std::shared_ptr<Listen>> listens;
        {
            std::lock_guard lock(sessions_mutex_);
            for (auto& [n, l] : listens_) {
                listens.push_back(l);
            }
        }
        for (auto& l : listens) {  // each stream ends with its graceful-close result
            {
                std::lock_guard lock(l->mutex);
                l->closed = true;
            }
            l->cv.notify_all();
        }
        server_.stop();
    }

private:
    /// How the gateway's list_changed listener reaches this transport while it exists.
    struct Link {
        std::mutex mutex;
        Impl* impl = nullptr;
    };
    static std::shared_ptr<Link> make_link(Impl* impl) {
        auto link = std::make_shared<Link>();
        link->impl = impl;
        return link;
    }

    struct Session {
        std::string id;
        std::string caller;  ///< the caller's name ("" without auth)
        std::shared_ptr<const mcp::MetaTools> tools;
        std::mutex mutex;
        std::condition_variable cv;
        std::unordered_map<std::string, std::shared_ptr<CancelToken>> calls;  ///< by id text
        std::deque<std::string> events;
        bool stream_open = false;
        bool closed = false;
        std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::now();
    };

    /// One subscriptions/listen of a 2026-07-28 caller: the POST's response stays an event
    /// stream that carries the acknowledgement, tagged list changes and, at shutdown, the result.
    struct Listen {
        Json id;
        std::mutex mutex;
        std::condition_variable cv;
        std::deque<std::string> events;
        bool closed = false;
    };

    /// Who is calling: the caller's name and scope, or nullopt after answering 401.
    struct Who {
        std::string name;
        std::shared_ptr<const mcp::MetaTools> tools;
    };

    void configure() {
        const HttpLimits& l = options_.limits;
        server_.new_task_queue = [l] {
            return new BoundedPool(l.max_connections, l.queued_connections);
        };
        server_.set_payload_max_length(l.max_body_bytes);
        server_.set_read_timeout(static_cast<time_t>(l.read_timeout.count()), 0);
        server_.set_write_timeout(static_cast<time_t>(l.write_timeout.count()), 0);
        server_.set_keep_alive_timeout(static_cast<time_t>(l.keep_alive.count()));
        server_.set_keep_alive_max_count(1000);
        server_.set_tcp_nodelay(true);
        server_.set_pre_routing_handler(
            [this](const httplib::Request& req, httplib::Response& res) {
                gateway_.metrics().record_http_request();
                if (t_overloaded) {
                    res.set_header("Retry-After", "1");
                    res.set_header("Connection", "close");
                    json_error(res, 503, nullptr, kServerBusy, "Server busy: too many connections");
                    return httplib::Server::HandlerResponse::Handled;
                }
                if (!origin_allowed(req.get_header_value("Origin"), options_.allowed_origins)) {
                    json_error(res, 403, nullptr, kInvalidRequest, "Forbidden: origin not allowed");
                    return httplib::Server::HandlerResponse::Handled;
                }
                return httplib::Server::HandlerResponse::Unhandled;
            });
        server_.set_exception_handler(
            [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
                json_error(res, 500, nullptr, kInternalError, "Internal error");
            });
        server_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
            post(req, res);
        });
        server_.Get("/mcp",
                    [this](const httplib::Request& req, httplib::Response& res) { get(req, res); });
        server_.Delete("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
            remove(req, res);
        });
        for (const char* method : {"PUT", "PATCH"}) {
            auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
                res.set_header("Allow", "GET, POST, DELETE");
                json_error(res, 405, nullptr, kInvalidRequest, "Method not allowed");
            };
            if (std::string(method) == "PUT") {
                server_.Put("/mcp", not_allowed);
            } else {
                server_.Patch("/mcp", not_allowed);
            }
        }
        server_.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
            if (!authenticate(req, res)) {
                return;
            }
            res.set_content(gateway_.metrics_text(), "text/plain; version=0.0.4");
        });
    }

    std::optional<Who> authenticate(const httplib::Request& req, httplib::Response& res) {
        if (!options_.auth) {
            return Who{"", open_tools_};
        }
        const std::string header = req.get_header_value("Authorization");
        const CallerScope* caller = options_.auth->authenticate(header);
        if (caller == nullptr) {
            gateway_.metrics().record_auth_failure();
            res.set_header(
                "WWW-Authenticate",
                header.empty()
                    ? std::string("Bearer realm=\"scout-gateway\"")
                    : std::string("Bearer realm=\"scout-gateway\", error=\"invalid_token\""));
            json_error(res,
                       401,
                       nullptr,
                       kInvalidRequest,
                       "Unauthorized: a valid bearer token is required");
            return std::nullopt;
        }
        return Who{caller->name, caller_tools_.at(caller->name)};
    }

    /// The session a request names, or nullptr after answering 400/404.
    std::shared_ptr<Session> find_session(const httplib::Request& req,
                                          httplib::Response& res,
                                          const Who& who) {
        const std::string id = req.get_header_value("Mcp-Session-Id");
        if (id.empty()) {
            json_error(res,
                       400,
                       nullptr,
                       kInvalidRequest,
                       "Bad Request: Mcp-Session-Id header is required (send initialize first)");
            return nullptr;
        }
        std::lock_guard lock(sessions_mutex_);
        auto it = sessions_.find(id);
        // Another caller's session is "not found": its existence is not revealed.
        if (it == sessions_.end() || it->second->caller != who.name) {
            json_error(res, 404, nullptr, kInvalidRequest, "Session not found: initialize again");
            return nullptr;
        }
        it->second->last_used = std::chrono::steady_clock::now();
        return it->second;
    }

    bool check_protocol_version(const httplib::Request& req, httplib::Response& res) {
        const std::string v = req.get_header_value("MCP-Protocol-Version");
        if (!v.empty() && !supported_version(v)) {
            json_error(res,
                       400,
                       nullptr,
                       kInvalidRequest,
                       "Bad Request: unsupported MCP-Protocol-Version " + detail::clipped(v, 40));
            return false;
        }
        return true;
    }

    std::shared_ptr<Session> open_session(const Who& who) {
        auto s = std::make_shared<Session>();
        s->id = random_session_id();
        s->caller = who.name;
        s->tools = who.tools;
        std::vector<std::shared_ptr<Session>> ended;
        {
            std::lock_guard lock(sessions_mutex_);
            const auto now = std::chrono::steady_clock::now();
            for (auto it = sessions_.begin(); it != sessions_.end();) {
                if (now - it->second->last_used > options_.limits.session_idle) {
                    ended.push_back(it->second);
                    it = sessions_.erase(it);
                } else {
                    ++it;
                }
            }
            while (sessions_.size() >= options_.limits.max_sessions && !sessions_.empty()) {
                auto oldest = sessions_.begin();
                for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
                    if (it->second->last_used < oldest->second->last_used) {
                        oldest = it;
                    }
                }
                ended.push_back(oldest->second);
                sessions_.erase(oldest);
            }
            sessions_[s->id] = s;
        }
        for (auto& e : ended) {
            close_session(*e);
        }
        return s;
    }

    void close_session(Session& s) {
        gateway_.end_client(s.id);  // its resource subscriptions end with it
        std::vector<std::shared_ptr<CancelToken>> calls;
        {
            std::lock_guard lock(s.mutex);
            s.closed = true;
            for (auto& [id, token] : s.calls) {
                calls.push_back(token);
            }
        }
        s.cv.notify_all();
        for (auto& t : calls) {
            t->cancel("the session ended");
        }
    }

    void post(const httplib::Request& req, httplib::Response& res) {
        auto who = authenticate(req, res);
        if (!who) {
            return;
        }
        if (media_type(req.get_header_value("Content-Type")) != kJson) {
            json_error(res,
                       415,
                       nullptr,
                       kInvalidRequest,
                       "Unsupported Media Type: POST a JSON-RPC message as application/json");
            return;
        }
        const AcceptedTypes accept = parse_accept(req.get_header_value("Accept"));
        if (!accept.json && !accept.event_stream) {
            json_error(res,
                       406,
                       nullptr,
                       kInvalidRequest,
                       "Not Acceptable: accept application/json or text/event-stream");
            return;
        }
        const bool modern_header =
            req.get_header_value("MCP-Protocol-Version") == modern::kProtocolVersion;
        Message m = classify(req.body);
        if (m.kind == MessageKind::parse_error) {
            json_error(res, 400, nullptr, kParseError, m.error);
            return;
        }
        if (m.kind == MessageKind::invalid) {
            json_error(res, 400, m.id, kInvalidRequest, m.error);
            return;
        }
        // The era, per message: an envelope in _meta (or the modern version header) is the
        // stateless 2026-07-28 era; initialize is legacy unless its envelope names the former.
        const bool carries = m.method == "initialize"
                                 ? modern::envelope_version(m.body) == modern::kProtocolVersion
                                 : modern::carries_envelope(m.body);
        if (m.kind != MessageKind::response && (carries || modern_header)) {
            post_modern(req, res, m, *who, accept);
            return;
        }
        if (modern_header) {  // a response: the gateway sends modern callers no requests
            res.status = 202;
            return;
        }
        // After the era is known: a modern body's version is judged by its envelope.
        if (!check_protocol_version(req, res)) {
            return;
        }
        std::shared_ptr<Session> session;
        if (m.kind == MessageKind::request && m.method == "initialize") {
            session = open_session(*who);
            res.set_header("Mcp-Session-Id", session->id);
        } else {
            session = find_session(req, res, *who);
            if (!session) {
                return;
            }
        }
        if (m.kind != MessageKind::request) {
            if (m.kind == MessageKind::notification && m.method == "notifications/cancelled") {
                cancel(*session, m.body.value("params", Json::object()));
            }
            res.status = 202;
            return;
        }
        const std::string key = m.id.dump();
        auto token = std::make_shared<CancelToken>();
        {
            std::lock_guard lock(session->mutex);
            if (session->closed) {
                json_error(res, 404, m.id, kInvalidRequest, "Session not found: it has ended");
                return;
            }
            if (!session->calls.emplace(key, token).second) {
                json_error(res,
                           400,
                           m.id,
                           kInvalidRequest,
                           "Invalid Request: a request with this id is in flight");
                return;
            }
        }
        Json answer = gateway_.answer(m, *session->tools, token, session->id);
        bool ended = false;
        {
            std::lock_guard lock(session->mutex);
            session->calls.erase(key);
            ended = session->closed;
        }
        if (ended) {  // a subscription made as the session ended must not outlive it
            gateway_.end_client(session->id);
        }
        if (token->cancelled()) {  // cancelled by the client, or its session ended
            res.status = 202;
            return;
        }
        if (!accept.json) {
            res.set_content("event: message\ndata: " + to_line(answer) + "\n\n", kEventStream);
            return;
        }
        res.set_content(to_line(answer), kJson);
    }

    /// A request or notification of the stateless era: no session; every request carries its
    /// envelope and the standard headers that mirror it.
    void post_modern(const httplib::Request& req,
                     httplib::Response& res,
                     const Message& m,
                     const Who& who,
                     const AcceptedTypes& accept) {
        if (m.kind == MessageKind::request) {
            if (auto error = modern::check_envelope(m.body)) {
                res.status = error->http_status;
                res.set_content(to_line(modern::error_response(m.id, *error)), kJson);
                return;
            }
        }
        modern::ModernHeaders headers;
        if (req.has_header("MCP-Protocol-Version")) {
            headers.protocol_version = req.get_header_value("MCP-Protocol-Version");
        }
        if (req.has_header("Mcp-Method")) {
            headers.method = req.get_header_value("Mcp-Method");
        }
        if (req.has_header("Mcp-Name")) {
            headers.name = req.get_header_value("Mcp-Name");
        }
        if (auto error = modern::check_headers(m.body, headers)) {
            res.status = error->http_status;
            res.set_content(to_line(modern::error_response(m.id, *error)), kJson);
            return;
        }
        if (m.kind == MessageKind::notification) {
            if (m.method == "notifications/cancelled") {
                cancel_modern(who, m.body.value("params", Json::object()));
            }
            res.status = 202;
            return;
        }
        if (!modern::serves_method(m.method)) {
            json_error(res,
                       404,
                       m.id,
                       kMethodNotFound,
                       "Method not found: " + detail::clipped(m.method) +
                           " (not served in protocol revision " + modern::kProtocolVersion + ")");
            return;
        }
        if (m.method == "subscriptions/listen") {
            listen(res, m);
            return;
        }
        // Calls in flight by caller and id, for notifications/cancelled (no session to hold them).
        const std::string key = who.name + '\n' + m.id.dump();
        auto token = std::make_shared<CancelToken>();
        {
            std::lock_guard lock(sessions_mutex_);
            if (!modern_calls_.emplace(key, token).second) {
                json_error(res,
                           400,
                           m.id,
                           kInvalidRequest,
                           "Invalid Request: a request with this id is in flight");
                return;
            }
        }
        // With bearer tokens the answer depends on the caller's scope: never shared caches.
        Json answer = gateway_.answer_modern(m, *who.tools, token, options_.auth != nullptr);
        {
            std::lock_guard lock(sessions_mutex_);
            modern_calls_.erase(key);
        }
        if (token->cancelled()) {
            res.status = 202;
            return;
        }
        if (!accept.json) {
            res.set_content("event: message\ndata: " + to_line(answer) + "\n\n", kEventStream);
            return;
        }
        res.set_content(to_line(answer), kJson);
    }

    void cancel_modern(const Who& who, const Json& params) {
        auto id = params.is_object() ? params.find("requestId") : params.end();
        if (!params.is_object() || id == params.end()) {
            return;
        }
        std::shared_ptr<CancelToken> token;
        {
            std::lock_guard lock(sessions_mutex_);
            if (auto it = modern_calls_.find(who.name + '\n' + id->dump());
                it != modern_calls_.end()) {
                token = it->second;
            }
        }
        if (token) {
            token->cancel("cancelled by the client");
        }
    }

    /// subscriptions/listen: the response is an event stream until the client goes or the
    /// transport stops (then the subscription's result ends it).
    void listen(httplib::Response& res, const Message& m) {
        Json honoured;
        if (auto error = modern::check_listen(m.body, honoured)) {
            res.set_content(to_line(modern::error_response(m.id, *error)), kJson);
            return;
        }
        auto l = std::make_shared<Listen>();
        l->id = m.id;
        l->events.push_back(to_line(modern::acknowledged(m.id, honoured)));
        l->closed = !honoured.contains("toolsListChanged");  // nothing will ever come
        std::uint64_t number = 0;
        {
            std::lock_guard lock(sessions_mutex_);
            if (stopping_ || open_streams_ >= options_.limits.max_streams) {
                res.set_header("Retry-After", "5");
                json_error(res, 503, m.id, kServerBusy, "Server busy: too many event streams");
                return;
            }
            ++open_streams_;
            number = ++listen_count_;
            listens_[number] = l;
        }
        const auto ping = options_.limits.stream_ping;
        res.set_header("Cache-Control", "no-cache");
        res.set_chunked_content_provider(
            kEventStream,
            [l, ping, last = std::chrono::steady_clock::now()](std::size_t,
                                                               httplib::DataSink& sink) mutable {
                std::unique_lock lock(l->mutex);
                l->cv.wait_for(lock, std::chrono::milliseconds(500), [&] {
                    return l->closed || !l->events.empty();
                });
                std::string out;
                while (!l->events.empty()) {
                    out += "event: message\ndata: " + l->events.front() + "\n\n";
                    l->events.pop_front();
                }
                const bool closed = l->closed;
                lock.unlock();
                if (closed) {
                    out +=
                        "event: message\ndata: " + to_line(modern::listen_closed(l->id)) + "\n\n";
                    if (sink.write(out.data(), out.size())) {
                        sink.done();
                    }
                    return true;
                }
                return send_or_ping(sink, std::move(out), last, ping);
            },
            [this, number](bool) {
                std::lock_guard lock(sessions_mutex_);
                listens_.erase(number);
                --open_streams_;
            });
    }

    static void cancel(Session& s, const Json& params) {
        auto id = params.is_object() ? params.find("requestId") : params.end();
        if (!params.is_object() || id == params.end() ||
            !(id->is_string() || id->is_number_integer())) {
            return;
        }
        std::shared_ptr<CancelToken> token;
        {
            std::lock_guard lock(s.mutex);
            if (auto it = s.calls.find(id->dump()); it != s.calls.end()) {
                token = it->second;
            }
        }
        if (token) {
            token->cancel("cancelled by the client");
        }
    }

    void get(const httplib::Request& req, httplib::Response& res) {
        auto who = authenticate(req, res);
        if (!who) {
            return;
        }
        if (req.get_header_value("MCP-Protocol-Version") == modern::kProtocolVersion) {
            // The stateless era has no standalone stream: changes come on subscriptions/listen.
            res.set_header("Allow", "POST");
            json_error(res,
                       405,
                       nullptr,
                       kInvalidRequest,
                       "Method not allowed: protocol revision " +
                           std::string(modern::kProtocolVersion) +
                           " has no GET stream; POST subscriptions/listen");
            return;
        }
        if (!parse_accept(req.get_header_value("Accept")).event_stream) {
            json_error(
                res, 406, nullptr, kInvalidRequest, "Not Acceptable: GET needs text/event-stream");
            return;
        }
        if (!check_protocol_version(req, res)) {
            return;
        }
        auto session = find_session(req, res, *who);
        if (!session) {
            return;
        }
        {
            std::lock_guard lock(sessions_mutex_);
            if (open_streams_ >= options_.limits.max_streams) {
                res.set_header("Retry-After", "5");
                json_error(res, 503, nullptr, kServerBusy, "Server busy: too many event streams");
                return;
            }
            std::lock_guard session_lock(session->mutex);
            if (session->stream_open) {
                json_error(res,
                           409,
                           nullptr,
                           kInvalidRequest,
                           "Conflict: this session already has an event stream");
                return;
            }
            session->stream_open = true;
            ++open_streams_;
        }
        const auto ping = options_.limits.stream_ping;
        res.set_header("Cache-Control", "no-cache");
        res.set_chunked_content_provider(
            kEventStream,
            [session, ping, last = std::chrono::steady_clock::now()](
                std::size_t, httplib::DataSink& sink) mutable {
                std::unique_lock lock(session->mutex);
                // Short waits: httplib checks between calls whether the server is stopping.
                session->cv.wait_for(lock, std::chrono::milliseconds(500), [&] {
                    return session->closed || !session->events.empty();
                });
                if (session->closed) {
                    lock.unlock();
                    sink.done();
                    return true;
                }
                std::string out;
                while (!session->events.empty()) {
                    out += "event: message\ndata: " + session->events.front() + "\n\n";
                    session->events.pop_front();
                }
                lock.unlock();
                return send_or_ping(sink, std::move(out), last, ping);
            },
            [this, session](bool) {
                {
                    std::lock_guard lock(session->mutex);
                    session->stream_open = false;
                }
                std::lock_guard lock(sessions_mutex_);
                --open_streams_;
            });
    }

    void remove(const httplib::Request& req, httplib::Response& res) {
        auto who = authenticate(req, res);
        if (!who) {
            return;
        }
        auto session = find_session(req, res, *who);
        if (!session) {
            return;
        }
        {
            std::lock_guard lock(sessions_mutex_);
            sessions_.erase(session->id);
        }
        close_session(*session);
        res.status = 200;
    }

    void broadcast_list_changed() {
        const std::string line = to_line(make_notification("notifications/tools/list_changed"));
        std::vector<std::shared_ptr<Session>> sessions;
        {
            std::lock_guard lock(sessions_mutex_);
            for (auto& [id, s] : sessions_) {
                sessions.push_back(s);
            }
        }
        std::vector<std::shared_ptr<Listen>> listens;
        {
            std::lock_guard lock(sessions_mutex_);
            for (auto& [n, l] : listens_) {
                listens.push_back(l);
            }
        }
        for (auto& l : listens) {  // the modern era's subscribers, each tagged with its id
            {
                std::lock_guard lock(l->mutex);
                if (l->closed) {
                    continue;
                }
                if (l->events.size() >= kMaxQueuedEvents) {
                    l->events.pop_front();
                }
                l->events.push_back(to_line(modern::tools_list_changed(l->id)));
            }
            l->cv.notify_all();
        }
        for (auto& s : sessions) {
            {
                std::lock_guard lock(s->mutex);
                if (!s->stream_open) {
                    continue;
                }
                if (s->events.size() >= kMaxQueuedEvents) {
                    s->events.pop_front();
                }
                s->events.push_back(line);
            }
            s->cv.notify_all();
        }
    }

    /// A resource update to the sessions subscribed to it, on their GET stream (dropped for a
    /// session without one, as list_changed is).
    void deliver(const std::vector<std::string>& ids, const std::string& line) {
        std::vector<std::shared_ptr<Session>> sessions;
        {
            std::lock_guard lock(sessions_mutex_);
            for (const std::string& id : ids) {
                if (auto it = sessions_.find(id); it != sessions_.end()) {
                    sessions.push_back(it->second);
                }
            }
        }
        for (auto& s : sessions) {
            {
                std::lock_guard lock(s->mutex);
                if (!s->stream_open || s->closed) {
                    continue;
                }
                if (s->events.size() >= kMaxQueuedEvents) {
                    s->events.pop_front();
                    // A backend flooding updates, or a client not reading: say so, not per event.
                    const std::uint64_t n = ++dropped_updates_;
                    if (n <= 5 || n % 1000 == 0) {
                        log_line("a session's event queue is full; dropped its oldest event (" +
                                 std::to_string(n) + " so far)");
                    }
                }
                s->events.push_back(line);
            }
            s->cv.notify_all();
        }
    }

    Gateway& gateway_;
    HttpOptions options_;
    std::shared_ptr<Link> link_ = make_link(this);
    std::shared_ptr<const mcp::MetaTools> open_tools_;  ///< the scope without auth
    std::map<std::string, std::shared_ptr<const mcp::MetaTools>> caller_tools_;
    httplib::Server server_;
    int port_ = 0;
    std::mutex sessions_mutex_;
    std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
    std::size_t open_streams_ = 0;
    bool stopping_ = false;
    /// The stateless era's calls in flight (caller and id) and open subscriptions.
    std::unordered_map<std::string, std::shared_ptr<CancelToken>> modern_calls_;
    std::map<std::uint64_t, std::shared_ptr<Listen>> listens_;
    std::uint64_t listen_count_ = 0;
    std::atomic<std::uint64_t> dropped_updates_{0};  ///< resource updates lost to full queues
};

HttpTransport::HttpTransport(Gateway& gateway, HttpOptions options)
    : impl_(std::make_unique<Impl>(gateway, std::move(options))) {}

HttpTransport::~HttpTransport() {
    impl_->stop();
}

Status HttpTransport::bind() {
    return impl_->bind();
}

int HttpTransport::port() const {
    return impl_->port();
}

void HttpTransport::serve() {
    impl_->serve();
}

void HttpTransport::stop() {
    impl_->stop();
}

}  // namespace scout::gateway
