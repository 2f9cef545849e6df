// http_transport_requests.cpp: a request's way in: its head checked on the I/O thread (host,
// origin, endpoint, method, token), its caller authenticated and rate-limited, then routed to
// the probes, /metrics, GET, DELETE or POST, and run within the caller's share of the calls pool.
#include <algorithm>
#include <chrono>
#include <cstdint>

#include "http_transport_impl.hpp"
#include "http_transport_parts.hpp"
#include "log.hpp"
#include "printable.hpp"

namespace scout::gateway {

using transport_detail::busy;
using transport_detail::caller_connector;
using transport_detail::json_error;
using transport_detail::kJson;
using transport_detail::listener_metrics;
using transport_detail::may_wait_on_backend;
using transport_detail::random_request_id;
using transport_detail::rate_text;
using transport_detail::supported_version;

std::optional<HttpResponse> HttpTransport::Impl::check_head(const HttpRequest& head) {
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

void HttpTransport::Impl::handle(HttpRequest request, const Responder& respond) {
    auto job = [this, request = std::move(request), respond]() mutable {
        serve_request(request, respond);
    };
    if (!searches_.submit(std::move(job))) {
        respond(busy(503, nullptr, "Server busy: too many requests waiting"));
    }
}

void HttpTransport::Impl::serve_request(const HttpRequest& req, const Responder& respond) {
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

std::optional<HttpTransport::Impl::Who> HttpTransport::Impl::authenticate(
    const HttpRequest& req, std::optional<HttpResponse>& refusal) {
    if (!options_.auth) {
        return Who{"", req.peer_address, open_tools_, options_.limits.rate};
    }
    // Two Authorization fields are ambiguous (a proxy may read the other one): refused
    // whichever they hold (RFC 6750 section 3.1, invalid_request).
    if (std::count_if(req.headers.begin(), req.headers.end(), [](const auto& field) {
            return field.first.size() == 13 &&
                   std::equal(
                       field.first.begin(), field.first.end(), "authorization", [](char a, char b) {
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
        r.set_header("WWW-Authenticate",
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
               tools != callers->tools.end() ? tools->second
                                             : std::make_shared<const mcp::MetaTools>(
                                                   caller_connector(gateway_.connector(), *caller)),
               caller->rate ? caller->rate : options_.limits.rate};
}

bool HttpTransport::Impl::is_stopping() {
    std::lock_guard lock(mutex_);
    return stopping_;
}

std::optional<HttpResponse> HttpTransport::Impl::check_protocol_version(const HttpRequest& req) {
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

void HttpTransport::Impl::run(const Message& m,
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
            respond(
                busy(429,
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

}  // namespace scout::gateway
