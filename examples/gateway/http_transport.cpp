// http_transport.cpp: see http_transport.hpp. The HTTP server reads requests on its I/O thread;
// complete ones come here and run on one of two pools: searches, listings and session requests
// on a few threads of their own, and requests that may wait on a backend on a larger pool where
// each caller holds at most max_calls_per_caller threads. Event streams hold no thread at all.
#include "http_transport.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>

#include "call_pool.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "post_stream.hpp"
#include "printable.hpp"
#include "rate_limiter.hpp"

namespace scout::gateway {
namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kEventStream = "text/event-stream";

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

/// A request's id: 64 random bits in hex, for X-Request-Id and the log lines about it.
std::string random_request_id() {
    thread_local std::mt19937_64 bits{[] {
        std::random_device rd;
        return (std::uint64_t{rd()} << 32) ^ rd();
    }()};
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits()));
    return buf;
}

bool supported_version(const std::string& v) {
    return std::any_of(std::begin(kSupportedProtocolVersions),
                       std::end(kSupportedProtocolVersions),
                       [&](const char* s) { return v == s; });
}

HttpResponse json_error(int status, const Json& id, int code, std::string message) {
    HttpResponse r;
    r.status = status;
    r.content_type = kJson;
    r.body = to_line(make_error(id, code, std::move(message)));
    return r;
}

HttpResponse busy(int status, const Json& id, std::string message) {
    HttpResponse r = json_error(status, id, kServerBusy, std::move(message));
    r.set_header("Retry-After", "1");
    return r;
}

HttpResponse json_answer(const Json& answer, bool event_stream) {
    HttpResponse r;
    if (event_stream) {
        r.content_type = kEventStream;
        r.body = "event: message\ndata: " + to_line(answer) + "\n\n";
    } else {
        r.content_type = kJson;
        r.body = to_line(answer);
    }
    return r;
}

HttpResponse status_only(int status) {
    HttpResponse r;
    r.status = status;
    return r;
}

/// A rate for a message: "0.5", "10".
std::string rate_text(double per_second) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", per_second);
    return text;
}

std::string sse_event(const std::string& line) {
    return "event: message\ndata: " + line + "\n\n";
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

/// Why JWTs are refused, logged at most once a second with how many refusals the line stands
/// for, so a flood of bad tokens cannot flood the log. The token itself is never logged.
class JwtRefusalLog {
public:
    void note(const std::string& why) {
        const auto now = std::chrono::steady_clock::now();
        std::uint64_t count = 0;
        {
            std::lock_guard lock(mutex_);
            ++pending_;
            if (now - last_ < std::chrono::seconds(1)) {
                return;
            }
            last_ = now;
            count = pending_;
            pending_ = 0;
        }
        log_line(LogLevel::info,
                 "JWT refused: " + detail::printable(why) +
                     (count > 1 ? " (" + std::to_string(count) + " refusals since the last line)"
                                : std::string()));
    }

private:
    std::mutex mutex_;
    std::chrono::steady_clock::time_point last_{};
    std::uint64_t pending_ = 0;
};

/// The listener's own series (aggregates: they name no server or tool).
std::string listener_metrics(const HttpServerCounts& c) {
    auto line = [](const std::string& name, std::uint64_t v) {
        return name + " " + std::to_string(v) + "\n";
    };
    return "# HELP scout_http_connections_open Connections open on the listener.\n"
           "# TYPE scout_http_connections_open gauge\n" +
           line("scout_http_connections_open", c.open_connections) +
           "# HELP scout_http_connections_total Connections accepted.\n"
           "# TYPE scout_http_connections_total counter\n" +
           line("scout_http_connections_total", c.connections) +
           "# HELP scout_http_evicted_total Idle connections closed to make room for new ones.\n"
           "# TYPE scout_http_evicted_total counter\n" +
           line("scout_http_evicted_total", c.evicted) +
           "# HELP scout_http_refused_total Requests and connections the listener refused.\n"
           "# TYPE scout_http_refused_total counter\n" +
           line("scout_http_refused_total{reason=\"busy\"}", c.shed) +
           line("scout_http_refused_total{reason=\"timeout\"}", c.timeouts) +
           line("scout_http_refused_total{reason=\"too_large\"}", c.too_large) +
           line("scout_http_refused_total{reason=\"malformed\"}", c.bad_requests);
}

/// Whether answering `m` may wait on a backend: anything but the gateway's own methods and
/// tool_search. Such requests run on the calls pool, under the caller's share of it.
bool may_wait_on_backend(const Message& m) {
    if (m.kind != MessageKind::request) {
        return false;
    }
    if (m.method == "tools/call") {
        const Json params = m.body.value("params", Json::object());
        return !(params.is_object() && params.value("name", Json()) == "tool_search");
    }
    return m.method.rfind("resources/", 0) == 0 || m.method.rfind("prompts/", 0) == 0 ||
           m.method == "completion/complete" || m.method == "logging/setLevel";
}

}  // namespace

class HttpTransport::Impl {
public:
    Impl(Gateway& gateway, HttpOptions options)
        : gateway_(gateway),
          options_(std::move(options)),
          open_tools_(std::make_shared<mcp::MetaTools>(gateway.connector())),
          searches_(std::max<std::size_t>(options_.limits.search_threads, 1), 1024),
          calls_(std::max<std::size_t>(options_.limits.max_calls, 1), 1024),
          server_(server_options()) {
        if (options_.auth) {
            callers_ = make_callers(options_.auth);
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
    }

    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        {
            std::lock_guard lock(link_->mutex);
            link_->impl = nullptr;
        }
        stop();
        searches_.shutdown();
        calls_.shutdown();
    }

    Status bind() {
        if (!options_.auth && !is_loopback_host(options_.address.host)) {
            return Status{Errc::invalid_argument,
                          "--listen " + options_.address.host +
                              " is not a loopback address: give --auth-file to serve other hosts"};
        }
        return server_.bind();
    }

    [[nodiscard]] int port() const { return server_.port(); }

    Status reload_auth(std::shared_ptr<const AuthTable> auth) {
        if (!options_.auth) {
            return Status{Errc::invalid_argument,
                          "the transport was started without an auth file: nothing to reload"};
        }
        if (!auth) {
            return Status{Errc::invalid_argument, "no auth table"};
        }
        // Built before the swap, so requests never wait on it; from the swap on, every request
        // (of an existing session too) authenticates against the new table.
        auto fresh = make_callers(std::move(auth));
        std::vector<std::shared_ptr<Session>> ended;
        {
            std::lock_guard lock(callers_mutex_);
            callers_ = fresh;
        }
        {
            // The sessions of callers that are gone end now, their event streams with them.
            std::lock_guard lock(mutex_);
            for (auto it = sessions_.begin(); it != sessions_.end();) {
                if (fresh->tools.count(it->second->caller) == 0 &&
                    !fresh->auth->is_jwt_caller(it->second->caller)) {
                    ended.push_back(it->second);
                    it = sessions_.erase(it);
                } else {
                    ++it;
                }
            }
        }
        for (auto& e : ended) {
            close_session(*e);
        }
        return {};
    }

    void serve() { server_.serve(); }

    void stop() {
        std::vector<std::shared_ptr<Session>> sessions;
        std::vector<std::shared_ptr<Listen>> listens;
        std::vector<std::shared_ptr<CancelToken>> modern_calls;
        {
            std::lock_guard lock(mutex_);
            if (stopping_) {
                return;
            }
            stopping_ = true;
            for (auto& [id, s] : sessions_) {
                sessions.push_back(s);
            }
            sessions_.clear();
            for (auto& [n, l] : listens_) {
                listens.push_back(l);
            }
            for (auto& [key, token] : modern_calls_) {
                modern_calls.push_back(token);
            }
        }
        for (auto& s : sessions) {
            close_session(*s);
        }
        for (auto& l : listens) {  // each stream ends with its graceful-close result
            l->stream->finish(sse_event(to_line(modern::listen_closed(l->id))));
        }
        for (auto& t : modern_calls) {
            t->cancel("the gateway is stopping");
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
        std::string caller;  ///< who opened it (token name, or address without auth)
        std::mutex mutex;
        std::unordered_map<std::string, std::shared_ptr<CancelToken>> calls;  ///< by id text
        std::shared_ptr<EventStream> stream;  ///< the GET stream, while open
        bool closed = false;
        /// Its initialize declared sampling / elicitation: backends' requests are relayed to it.
        bool sampling = false;
        bool elicitation = false;
        /// Its answers to those requests (POSTed responses).
        std::shared_ptr<CallerAnswers> answers = std::make_shared<CallerAnswers>();
        std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::now();
    };

    /// One subscriptions/listen of a 2026-07-28 caller: the POST's response stays an event
    /// stream that carries the acknowledgement, tagged list changes and, at shutdown, the result.
    // nlohmann::json's default does not throw; the exception-escape check cannot see it.
    // NOLINTNEXTLINE(bugprone-exception-escape)
    struct Listen {
        Json id;
        std::shared_ptr<EventStream> stream;
    };

    /// The callers of one auth table and their scoped meta-tools, replaced whole on a reload.
    struct Callers {
        std::shared_ptr<const AuthTable> auth;
        std::map<std::string, std::shared_ptr<const mcp::MetaTools>> tools;
    };

    std::shared_ptr<const Callers> make_callers(std::shared_ptr<const AuthTable> auth) const {
        auto callers = std::make_shared<Callers>();
        for (const CallerScope& c : auth->callers()) {
            callers->tools[c.name] =
                std::make_shared<mcp::MetaTools>(caller_connector(gateway_.connector(), c));
        }
        callers->auth = std::move(auth);
        return callers;
    }

    /// The fetched JWT key set's series, when the auth table has one (jwks_url).
    std::string key_set_metrics() {
        const auto callers = current_callers();
        const JwtVerifier* jwt = callers ? callers->auth->jwt() : nullptr;
        return jwt != nullptr && jwt->remote() != nullptr ? jwks_metrics(jwt->remote()->counts())
                                                          : std::string();
    }

    std::shared_ptr<const Callers> current_callers() {
        std::lock_guard lock(callers_mutex_);
        return callers_;
    }

    /// Who is calling: the caller's name and scope.
    struct Who {
        std::string name;  ///< the token's name ("" without auth)
        std::string key;   ///< whose share of sessions, streams and calls this request uses
        std::shared_ptr<const mcp::MetaTools> tools;
        std::optional<RateLimit> rate;  ///< the caller's own, or the gateway's default
    };

    HttpServerOptions server_options() {
        HttpServerOptions o;
        o.host = options_.address.host;
        o.port = options_.address.port;
        o.limits = options_.limits.server;
        o.tls = options_.tls;
        o.check_head = [this](const HttpRequest& head) { return check_head(head); };
        o.handle = [this](HttpRequest request, const Responder& respond) {
            handle(std::move(request), respond);
        };
        o.error_response = [](int status, const std::string& message) {
            return json_error(
                status, nullptr, status == 503 ? kServerBusy : kInvalidRequest, message);
        };
        return o;
    }

    /// On the server's I/O thread, before the body is read: everything that can be refused
    /// from the head alone is refused here, so no unwelcome body is ever read.
    std::optional<HttpResponse> check_head(const HttpRequest& head) {
        gateway_.metrics().record_http_request();
        if (!options_.auth && !host_header_is_loopback(head.header("Host"))) {
            return json_error(403,
                              nullptr,
                              kInvalidRequest,
                              "Forbidden: Host is not a loopback name (a gateway without "
                              "--auth-file answers only requests addressed to this machine)");
        }
        if (!origin_allowed(head.header("Origin"), options_.allowed_origins)) {
            return json_error(403, nullptr, kInvalidRequest, "Forbidden: origin not allowed");
        }
        const std::string path = head.path();
        if (path == "/mcp") {
            if (head.method != "GET" && head.method != "POST" && head.method != "DELETE") {
                HttpResponse r = json_error(405, nullptr, kInvalidRequest, "Method not allowed");
                r.set_header("Allow", "GET, POST, DELETE");
                return r;
            }
        } else if (path == "/metrics" || path == "/healthz" || path == "/readyz") {
            if (head.method != "GET") {
                HttpResponse r = json_error(405, nullptr, kInvalidRequest, "Method not allowed");
                r.set_header("Allow", "GET");
                return r;
            }
            // The probes need no token and say nothing of any caller's scope.
            if (path == "/healthz") {
                HttpResponse r;
                r.content_type = kJson;
                r.body = R"({"status":"alive"})";
                return r;
            }
            if (path == "/readyz") {
                return std::nullopt;  // answered on a worker: the backends' states take locks
            }
        } else {
            return json_error(404, nullptr, kInvalidRequest, "Not found: the endpoint is /mcp");
        }
        std::optional<HttpResponse> refusal;
        (void)authenticate(head, refusal);
        return refusal;
    }

    /// On the I/O thread with a complete request: its work goes to the searches pool at once.
    void handle(HttpRequest request, const Responder& respond) {
        auto job = [this, request = std::move(request), respond]() mutable {
            serve_request(request, respond);
        };
        if (!searches_.submit(std::move(job))) {
            respond(busy(503, nullptr, "Server busy: too many requests waiting"));
        }
    }

    void serve_request(const HttpRequest& req, const Responder& respond) {
        // Every answer carries the request's id; a failed one is logged with it.
        respond.on_send(
            [id = random_request_id(), method = req.method, path = req.path()](HttpResponse& r) {
                r.set_header("X-Request-Id", id);
                const LogLevel level = r.status >= 500 ? LogLevel::warn : LogLevel::debug;
                if (log_enabled(level)) {
                    log_line(level,
                             "HTTP " + detail::printable(method) + " " + detail::clipped(path, 80) +
                                 " answered " + std::to_string(r.status),
                             {{"request_id", id}});
                }
            });
        if (is_stopping()) {
            respond(busy(503, nullptr, "Server stopping"));
            return;
        }
        if (req.path() == "/readyz") {
            const Gateway::Readiness readiness = gateway_.readiness();
            HttpResponse r;
            r.status = readiness.ready ? 200 : 503;
            r.content_type = kJson;
            r.body = to_line(readiness.body);
            respond(std::move(r));
            return;
        }
        std::optional<HttpResponse> refusal;
        auto who = authenticate(req, refusal);
        if (!who) {
            respond(std::move(*refusal));
            return;
        }
        if (who->rate) {
            if (const std::uint64_t wait = rates_.acquire(who->key, *who->rate); wait != 0) {
                HttpResponse r =
                    json_error(429,
                               nullptr,
                               kServerBusy,
                               "Too many requests: this caller's rate limit is " +
                                   rate_text(who->rate->requests_per_second) + " per second");
                r.set_header("Retry-After", std::to_string(wait));
                respond(std::move(r));
                return;
            }
        }
        if (req.path() == "/metrics") {
            HttpResponse r;
            r.content_type = "text/plain; version=0.0.4";
            r.body = gateway_.metrics_text(who->tools->connector().allowed_servers) +
                     listener_metrics(server_.counts()) + key_set_metrics();
            respond(std::move(r));
        } else if (req.method == "GET") {
            respond(get(req, *who));
        } else if (req.method == "DELETE") {
            respond(remove(req, *who));
        } else {
            post(req, *who, respond);
        }
    }

    std::optional<Who> authenticate(const HttpRequest& req, std::optional<HttpResponse>& refusal) {
        if (!options_.auth) {
            return Who{"", req.peer_address, open_tools_, options_.limits.rate};
        }
        // Two Authorization fields are ambiguous (a proxy may read the other one): refused
        // whichever they hold (RFC 6750 section 3.1, invalid_request).
        if (std::count_if(req.headers.begin(), req.headers.end(), [](const auto& field) {
                return field.first.size() == 13 &&
                       std::equal(field.first.begin(),
                                  field.first.end(),
                                  "authorization",
                                  [](char a, char b) {
                                      return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b;
                                  });
            }) > 1) {
            gateway_.metrics().record_auth_failure();
            HttpResponse r = json_error(
                400, nullptr, kInvalidRequest, "Bad Request: more than one Authorization header");
            r.set_header("WWW-Authenticate",
                         "Bearer realm=\"scout-gateway\", error=\"invalid_request\"");
            refusal = std::move(r);
            return std::nullopt;
        }
        const std::string header = req.header("Authorization");
        // Held for the whole request: one in flight during a reload finishes on its table.
        const std::shared_ptr<const Callers> callers = current_callers();
        std::string why;
        const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
        const std::optional<CallerScope> caller = callers->auth->identify(header, now, &why);
        if (!caller) {
            gateway_.metrics().record_auth_failure();
            if (!why.empty()) {
                jwt_refusals_.note(why);
            }
            HttpResponse r = json_error(
                401, nullptr, kInvalidRequest, "Unauthorized: a valid bearer token is required");
            r.set_header(
                "WWW-Authenticate",
                header.empty()
                    ? std::string("Bearer realm=\"scout-gateway\"")
                    : std::string("Bearer realm=\"scout-gateway\", error=\"invalid_token\""));
            refusal = std::move(r);
            return std::nullopt;
        }
        // A static caller's tools were built with the table; a JWT caller's scope comes with
        // its token, so its tools are built per request (a copy of the connector, no search).
        const auto tools = callers->tools.find(caller->name);
        return Who{caller->name,
                   caller->name,
                   tools != callers->tools.end()
                       ? tools->second
                       : std::make_shared<const mcp::MetaTools>(
                             caller_connector(gateway_.connector(), *caller)),
                   caller->rate ? caller->rate : options_.limits.rate};
    }

    bool is_stopping() {
        std::lock_guard lock(mutex_);
        return stopping_;
    }

    /// The session a request names, or nullptr with the 400/404 to send.
    std::shared_ptr<Session> find_session(const HttpRequest& req,
                                          const Who& who,
                                          std::optional<HttpResponse>& refusal) {
        const std::string id = req.header("Mcp-Session-Id");
        if (id.empty()) {
            refusal = json_error(400,
                                 nullptr,
                                 kInvalidRequest,
                                 "Bad Request: Mcp-Session-Id header is required (send "
                                 "initialize first)");
            return nullptr;
        }
        std::lock_guard lock(mutex_);
        auto it = sessions_.find(id);
        // Another caller's session is "not found": its existence is not revealed.
        if (it == sessions_.end() || it->second->caller != who.key) {
            refusal =
                json_error(404, nullptr, kInvalidRequest, "Session not found: initialize again");
            return nullptr;
        }
        it->second->last_used = std::chrono::steady_clock::now();
        return it->second;
    }

    std::optional<HttpResponse> check_protocol_version(const HttpRequest& req) {
        const std::string v = req.header("MCP-Protocol-Version");
        if (!v.empty() && !supported_version(v)) {
            return json_error(
                400,
                nullptr,
                kInvalidRequest,
                "Bad Request: unsupported MCP-Protocol-Version " + detail::clipped(v, 40));
        }
        return std::nullopt;
    }

    /// A new session for `who`, or nullptr when every caller's sessions fill the table. A
    /// caller at its own cap gives up its least recently used session: one caller never ends
    /// another's.
    std::shared_ptr<Session> open_session(const Who& who) {
        auto s = std::make_shared<Session>();
        s->id = random_session_id();
        s->caller = who.key;
        std::vector<std::shared_ptr<Session>> ended;
        {
            std::lock_guard lock(mutex_);
            const auto now = std::chrono::steady_clock::now();
            std::size_t own = 0;
            std::shared_ptr<Session> oldest_own;
            for (auto it = sessions_.begin(); it != sessions_.end();) {
                if (now - it->second->last_used > options_.limits.session_idle) {
                    ended.push_back(it->second);
                    it = sessions_.erase(it);
                    continue;
                }
                if (it->second->caller == who.key) {
                    ++own;
                    if (!oldest_own || it->second->last_used < oldest_own->last_used) {
                        oldest_own = it->second;
                    }
                }
                ++it;
            }
            if (own >= options_.limits.max_sessions_per_caller && oldest_own) {
                ended.push_back(oldest_own);
                sessions_.erase(oldest_own->id);
            } else if (sessions_.size() >= options_.limits.max_sessions) {
                s.reset();
            }
            if (s) {
                sessions_[s->id] = s;
            }
        }
        for (auto& e : ended) {
            close_session(*e);
        }
        return s;
    }

    void close_session(Session& s) {
        gateway_.end_client(s.id);  // its resource subscriptions end with it
        std::vector<std::shared_ptr<CancelToken>> calls;
        std::shared_ptr<EventStream> stream;
        {
            std::lock_guard lock(s.mutex);
            s.closed = true;
            for (auto& [id, token] : s.calls) {
                calls.push_back(token);
            }
            stream = s.stream;
        }
        if (stream) {
            stream->finish();
        }
        for (auto& t : calls) {
            t->cancel("the session ended");
        }
    }

    /// Runs `work` now when it cannot wait on a backend, else on the calls pool within the
    /// caller's share; the answer goes to `respond` either way.
    void run(const Message& m,
             const Who& who,
             const Responder& respond,
             std::function<HttpResponse()> work) {
        if (!may_wait_on_backend(m)) {
            respond(work());
            return;
        }
        {
            std::lock_guard lock(mutex_);
            std::size_t& mine = calls_by_caller_[who.key];
            if (mine >= options_.limits.max_calls_per_caller) {
                respond(busy(
                    429,
                    m.id,
                    "Too many requests: " + std::to_string(options_.limits.max_calls_per_caller) +
                        " calls of this caller are in flight"));
                return;
            }
            ++mine;
        }
        auto release = [this, key = who.key] {
            std::lock_guard lock(mutex_);
            if (auto it = calls_by_caller_.find(key);
                it != calls_by_caller_.end() && --it->second == 0) {
                calls_by_caller_.erase(it);
            }
        };
        const bool queued = calls_.submit([work = std::move(work), respond, release]() {
            HttpResponse r = work();
            release();
            respond(std::move(r));
        });
        if (!queued) {
            release();
            respond(busy(503, m.id, "Server busy: too many calls in flight"));
        }
    }

    void post(const HttpRequest& req, const Who& who, const Responder& respond) {
        if (media_type(req.header("Content-Type")) != kJson) {
            respond(
                json_error(415,
                           nullptr,
                           kInvalidRequest,
                           "Unsupported Media Type: POST a JSON-RPC message as application/json"));
            return;
        }
        const AcceptedTypes accept = parse_accept(req.header("Accept"));
        if (!accept.json && !accept.event_stream) {
            respond(json_error(406,
                               nullptr,
                               kInvalidRequest,
                               "Not Acceptable: accept application/json or text/event-stream"));
            return;
        }
        const bool modern_header = req.header("MCP-Protocol-Version") == modern::kProtocolVersion;
        auto m = std::make_shared<Message>(classify(req.body));
        if (m->kind == MessageKind::parse_error) {
            respond(json_error(400, nullptr, kParseError, m->error));
            return;
        }
        if (m->kind == MessageKind::invalid) {
            respond(json_error(400, m->id, kInvalidRequest, m->error));
            return;
        }
        // The era, per message: an envelope in _meta (or the modern version header) is the
        // stateless 2026-07-28 era; initialize is legacy unless its envelope names the former.
        const bool carries = m->method == "initialize"
                                 ? modern::envelope_version(m->body) == modern::kProtocolVersion
                                 : modern::carries_envelope(m->body);
        if (m->kind != MessageKind::response && (carries || modern_header)) {
            post_modern(req, m, who, accept, respond);
            return;
        }
        if (modern_header) {  // a response: the gateway sends modern callers no requests
            respond(status_only(202));
            return;
        }
        // After the era is known: a modern body's version is judged by its envelope.
        if (auto error = check_protocol_version(req)) {
            respond(std::move(*error));
            return;
        }
        std::shared_ptr<Session> session;
        std::string new_session;
        if (m->kind == MessageKind::request && m->method == "initialize") {
            session = open_session(who);
            if (!session) {
                respond(busy(503, m->id, "Server busy: too many sessions"));
                return;
            }
            new_session = session->id;
            const Json params = m->body.value("params", Json());
            session->sampling = declares_capability(params, "sampling");
            session->elicitation = declares_capability(params, "elicitation");
        } else {
            std::optional<HttpResponse> refusal;
            session = find_session(req, who, refusal);
            if (!session) {
                respond(std::move(*refusal));
                return;
            }
        }
        if (m->kind != MessageKind::request) {
            if (m->kind == MessageKind::response) {  // to a backend's request relayed to it
                (void)session->answers->deliver(
                    m->id,
                    m->too_deep
                        ? make_error(m->id, kInvalidRequest, "the answer is nested too deep")
                        : m->body);
            }
            if (m->kind == MessageKind::notification && m->method == "notifications/cancelled") {
                cancel(*session, m->body.value("params", Json::object()));
            }
            respond(status_only(202));
            return;
        }
        const std::string key = m->id.dump();
        auto token = std::make_shared<CancelToken>();
        {
            std::lock_guard lock(session->mutex);
            if (session->closed) {
                respond(json_error(404, m->id, kInvalidRequest, "Session not found: it has ended"));
                return;
            }
            if (!session->calls.emplace(key, token).second) {
                respond(json_error(400,
                                   m->id,
                                   kInvalidRequest,
                                   "Invalid Request: a request with this id is in flight"));
                return;
            }
        }
        // The scope of this request's authentication: after a reload, the caller's new one.
        // A tools/call relays the backend's messages on this POST's event stream.
        auto relayed = m->method == "tools/call"
                           ? std::make_shared<PostStream>(respond, accept.event_stream)
                           : nullptr;
        auto work =
            [this, m, session, token, key, new_session, accept, relayed, tools = who.tools]() {
                Json answer;
                if (relayed) {
                    CallerChannel caller;
                    caller.send = [relayed](const std::string& line) {
                        return relayed->send(line);
                    };
                    caller.answers = session->answers;
                    caller.sampling = session->sampling;
                    caller.elicitation = session->elicitation;
                    caller.progress_token = progress_token_of(*m);
                    answer = gateway_.answer(*m, *tools, token, session->id, &caller);
                } else {
                    answer = gateway_.answer(*m, *tools, token, session->id);
                }
                bool ended = false;
                {
                    std::lock_guard lock(session->mutex);
                    session->calls.erase(key);
                    ended = session->closed;
                }
                if (ended) {  // a subscription made as the session ended must not outlive it
                    gateway_.end_client(session->id);
                }
                const bool cancelled = token->cancelled();  // by the client, or its session ended
                if (relayed && relayed->finish(cancelled ? std::string() : to_line(answer))) {
                    return status_only(202);  // unused: the event stream answered the POST
                }
                if (cancelled) {
                    return status_only(202);
                }
                HttpResponse r = json_answer(answer, !accept.json);
                if (!new_session.empty()) {
                    r.set_header("Mcp-Session-Id", new_session);
                }
                return r;
            };
        run(*m, who, respond, std::move(work));
    }

    /// A request or notification of the stateless era: no session; every request carries its
    /// envelope and the standard headers that mirror it.
    void post_modern(const HttpRequest& req,
                     const std::shared_ptr<Message>& m,
                     const Who& who,
                     const AcceptedTypes& accept,
                     const Responder& respond) {
        if (m->kind == MessageKind::request) {
            if (auto error = modern::check_envelope(m->body)) {
                HttpResponse r = json_answer(modern::error_response(m->id, *error), false);
                r.status = error->http_status;
                respond(std::move(r));
                return;
            }
        }
        modern::ModernHeaders headers;
        if (req.has_header("MCP-Protocol-Version")) {
            headers.protocol_version = req.header("MCP-Protocol-Version");
        }
        if (req.has_header("Mcp-Method")) {
            headers.method = req.header("Mcp-Method");
        }
        if (req.has_header("Mcp-Name")) {
            headers.name = req.header("Mcp-Name");
        }
        if (auto error = modern::check_headers(m->body, headers)) {
            HttpResponse r = json_answer(modern::error_response(m->id, *error), false);
            r.status = error->http_status;
            respond(std::move(r));
            return;
        }
        if (m->kind == MessageKind::notification) {
            if (m->method == "notifications/cancelled") {
                cancel_modern(who, m->body.value("params", Json::object()));
            }
            respond(status_only(202));
            return;
        }
        if (!modern::serves_method(m->method)) {
            respond(json_error(404,
                               m->id,
                               kMethodNotFound,
                               "Method not found: " + detail::clipped(m->method) +
                                   " (not served in protocol revision " + modern::kProtocolVersion +
                                   ")"));
            return;
        }
        if (m->method == "subscriptions/listen") {
            respond(listen(*m, who));
            return;
        }
        // Calls in flight by caller and id, for notifications/cancelled (no session to hold them).
        const std::string key = who.key + '\n' + m->id.dump();
        auto token = std::make_shared<CancelToken>();
        {
            std::lock_guard lock(mutex_);
            if (!modern_calls_.emplace(key, token).second) {
                respond(json_error(400,
                                   m->id,
                                   kInvalidRequest,
                                   "Invalid Request: a request with this id is in flight"));
                return;
            }
        }
        auto work = [this, m, token, key, accept, tools = who.tools]() {
            // With bearer tokens the answer depends on the caller's scope: never shared caches.
            Json answer = gateway_.answer_modern(*m, *tools, token, options_.auth != nullptr);
            {
                std::lock_guard lock(mutex_);
                modern_calls_.erase(key);
            }
            if (token->cancelled()) {
                return status_only(202);
            }
            return json_answer(answer, !accept.json);
        };
        run(*m, who, respond, std::move(work));
    }

    void cancel_modern(const Who& who, const Json& params) {
        auto id = params.is_object() ? params.find("requestId") : params.end();
        if (!params.is_object() || id == params.end()) {
            return;
        }
        std::shared_ptr<CancelToken> token;
        {
            std::lock_guard lock(mutex_);
            if (auto it = modern_calls_.find(who.key + '\n' + id->dump());
                it != modern_calls_.end()) {
                token = it->second;
            }
        }
        if (token) {
            token->cancel("cancelled by the client");
        }
    }

    /// Takes one of the caller's event streams, or answers why not.
    std::optional<HttpResponse> take_stream(const Who& who, const Json& id) {
        // (called with mutex_ held)
        if (stopping_ || open_streams_ >= options_.limits.max_streams) {
            HttpResponse r =
                json_error(503, id, kServerBusy, "Server busy: too many event streams");
            r.set_header("Retry-After", "5");
            return r;
        }
        std::size_t& mine = streams_by_caller_[who.key];
        if (mine >= options_.limits.max_streams_per_caller) {
            HttpResponse r = json_error(429,
                                        id,
                                        kServerBusy,
                                        "Too many requests: this caller has " +
                                            std::to_string(mine) + " event streams open");
            r.set_header("Retry-After", "5");
            return r;
        }
        ++mine;
        ++open_streams_;
        return std::nullopt;
    }

    void give_back_stream(const std::string& key) {
        // (called with mutex_ held)
        --open_streams_;
        if (auto it = streams_by_caller_.find(key);
            it != streams_by_caller_.end() && --it->second == 0) {
            streams_by_caller_.erase(it);
        }
    }

    /// subscriptions/listen: the response is an event stream until the client goes or the
    /// transport stops (then the subscription's result ends it).
    HttpResponse listen(const Message& m, const Who& who) {
        Json honoured;
        if (auto error = modern::check_listen(m.body, honoured)) {
            return json_answer(modern::error_response(m.id, *error), false);
        }
        auto l = std::make_shared<Listen>();
        l->id = m.id;
        std::uint64_t number = 0;
        {
            std::lock_guard lock(mutex_);
            if (auto refusal = take_stream(who, m.id)) {
                return std::move(*refusal);
            }
            number = ++listen_count_;
            listens_[number] = l;
        }
        l->stream = std::make_shared<EventStream>([this, number, key = who.key] {
            std::lock_guard lock(mutex_);
            listens_.erase(number);
            give_back_stream(key);
        });
        l->stream->write(sse_event(to_line(modern::acknowledged(m.id, honoured))));
        if (!honoured.contains("toolsListChanged")) {  // nothing will ever come
            l->stream->finish(sse_event(to_line(modern::listen_closed(l->id))));
        }
        HttpResponse r;
        r.content_type = kEventStream;
        r.set_header("Cache-Control", "no-cache");
        r.stream = l->stream;
        return r;
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

    HttpResponse get(const HttpRequest& req, const Who& who) {
        if (req.header("MCP-Protocol-Version") == modern::kProtocolVersion) {
            // The stateless era has no standalone stream: changes come on subscriptions/listen.
            HttpResponse r = json_error(405,
                                        nullptr,
                                        kInvalidRequest,
                                        "Method not allowed: protocol revision " +
                                            std::string(modern::kProtocolVersion) +
                                            " has no GET stream; POST subscriptions/listen");
            r.set_header("Allow", "POST");
            return r;
        }
        if (!parse_accept(req.header("Accept")).event_stream) {
            return json_error(
                406, nullptr, kInvalidRequest, "Not Acceptable: GET needs text/event-stream");
        }
        if (auto error = check_protocol_version(req)) {
            return std::move(*error);
        }
        std::optional<HttpResponse> refusal;
        auto session = find_session(req, who, refusal);
        if (!session) {
            return std::move(*refusal);
        }
        std::shared_ptr<EventStream> stream;
        {
            std::lock_guard lock(mutex_);
            std::lock_guard session_lock(session->mutex);
            if (session->stream) {
                return json_error(409,
                                  nullptr,
                                  kInvalidRequest,
                                  "Conflict: this session already has an event stream");
            }
            if (session->closed) {
                return json_error(404, nullptr, kInvalidRequest, "Session not found: it has ended");
            }
            if (auto busy_answer = take_stream(who, nullptr)) {
                return std::move(*busy_answer);
            }
            std::weak_ptr<Session> weak = session;
            stream = std::make_shared<EventStream>([this, weak, key = who.key] {
                if (auto s = weak.lock()) {
                    std::lock_guard held(s->mutex);
                    s->stream.reset();
                }
                std::lock_guard held(mutex_);
                give_back_stream(key);
            });
            session->stream = stream;
        }
        HttpResponse r;
        r.content_type = kEventStream;
        r.set_header("Cache-Control", "no-cache");
        r.stream = std::move(stream);
        return r;
    }

    HttpResponse remove(const HttpRequest& req, const Who& who) {
        std::optional<HttpResponse> refusal;
        auto session = find_session(req, who, refusal);
        if (!session) {
            return std::move(*refusal);
        }
        {
            std::lock_guard lock(mutex_);
            sessions_.erase(session->id);
        }
        close_session(*session);
        return status_only(200);
    }

    void broadcast_list_changed() {
        const std::string event =
            sse_event(to_line(make_notification("notifications/tools/list_changed")));
        std::vector<std::shared_ptr<EventStream>> streams;
        {
            std::lock_guard lock(mutex_);
            for (auto& [n, l] : listens_) {  // the modern era's subscribers, each tagged
                l->stream->write(sse_event(to_line(modern::tools_list_changed(l->id))));
            }
            for (auto& [id, s] : sessions_) {
                std::lock_guard session_lock(s->mutex);
                if (s->stream) {
                    streams.push_back(s->stream);
                }
            }
        }
        for (auto& stream : streams) {
            stream->write(event);
        }
    }

    /// A resource update to the sessions subscribed to it, on their GET stream (dropped for a
    /// session without one, as list_changed is). A client reading slower than updates come
    /// loses the oldest unsent ones beyond HttpServerLimits::max_stream_buffer.
    void deliver(const std::vector<std::string>& ids, const std::string& line) {
        std::vector<std::shared_ptr<EventStream>> streams;
        {
            std::lock_guard lock(mutex_);
            for (const std::string& id : ids) {
                if (auto it = sessions_.find(id); it != sessions_.end()) {
                    std::lock_guard session_lock(it->second->mutex);
                    if (it->second->stream) {
                        streams.push_back(it->second->stream);
                    }
                }
            }
        }
        const std::string event = sse_event(line);
        for (auto& stream : streams) {
            if (!stream->write(event)) {
                const std::uint64_t n = ++dropped_updates_;
                if (n <= 5 || n % 1000 == 0) {
                    log_line("a session's event queue is full; dropped its oldest events (" +
                             std::to_string(n) + " times so far)");
                }
            }
        }
    }

    Gateway& gateway_;
    HttpOptions options_;
    std::shared_ptr<Link> link_ = make_link(this);
    std::shared_ptr<const mcp::MetaTools> open_tools_;  ///< the scope without auth
    JwtRefusalLog jwt_refusals_;
    std::mutex callers_mutex_;                ///< guards callers_ alone
    std::shared_ptr<const Callers> callers_;  ///< null without an auth file
    std::mutex mutex_;  ///< guards everything below (before any Session::mutex)
    std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
    std::size_t open_streams_ = 0;
    std::unordered_map<std::string, std::size_t> streams_by_caller_;
    std::unordered_map<std::string, std::size_t> calls_by_caller_;
    bool stopping_ = false;
    /// The stateless era's calls in flight (caller and id) and open subscriptions.
    std::unordered_map<std::string, std::shared_ptr<CancelToken>> modern_calls_;
    std::map<std::uint64_t, std::shared_ptr<Listen>> listens_;
    std::uint64_t listen_count_ = 0;
    std::atomic<std::uint64_t> dropped_updates_{0};
    RateLimiter rates_;
    CallPool searches_;  ///< searches, listings, session requests: never wait on a backend
    CallPool calls_;     ///< requests that may wait on a backend
    // Last: destroyed first, while the streams' end callbacks can still reach the above.
    HttpServer server_;
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

Status HttpTransport::reload_auth(std::shared_ptr<const AuthTable> auth) {
    return impl_->reload_auth(std::move(auth));
}

void HttpTransport::serve() {
    impl_->serve();
}

void HttpTransport::stop() {
    impl_->stop();
}

}  // namespace scout::gateway
