// http_transport_parts.cpp: see http_transport_parts.hpp.
#include "http_transport_parts.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>

namespace scout::gateway::transport_detail {

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

}  // namespace scout::gateway::transport_detail
