// remote_session.cpp: see remote_session.hpp.
#include "remote_session.hpp"

#include <httplib.h>

#include "bounded_body.hpp"
#include "http_rules.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

/// Largest answer accepted from a remote server (a tools/list page of thousands of tools fits).
constexpr std::size_t kMaxAnswerBytes = 64u << 20;
constexpr std::chrono::seconds kConnectTimeout{10};
/// How long close() waits for the DELETE that ends the session on the server.
constexpr std::chrono::seconds kDeleteTimeout{2};

bool has_control_or_space(std::string_view s) {
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b <= 0x20 || b == 0x7f) {
            return true;
        }
    }
    return false;
}

template <typename Duration>
void set_timeouts(httplib::Client& client, Duration read) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(read).count();
    client.set_read_timeout(static_cast<time_t>(us / 1000000), static_cast<time_t>(us % 1000000));
    client.set_write_timeout(static_cast<time_t>(us / 1000000), static_cast<time_t>(us % 1000000));
    const auto connect = std::min<std::chrono::microseconds>(
        std::chrono::duration_cast<std::chrono::microseconds>(read), kConnectTimeout);
    client.set_connection_timeout(static_cast<time_t>(connect.count() / 1000000),
                                  static_cast<time_t>(connect.count() % 1000000));
}

}  // namespace

std::optional<HttpUrl> parse_http_url(std::string_view url) {
    std::size_t scheme_end = 0;
    if (url.substr(0, 7) == "http://") {
        scheme_end = 7;
    } else if (url.substr(0, 8) == "https://") {
        scheme_end = 8;
    } else {
        return std::nullopt;
    }
    if (has_control_or_space(url) || url.find('#') != std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t slash = url.find('/', scheme_end);
    const std::string_view authority = url.substr(scheme_end, slash - scheme_end);
    if (authority.empty() || authority.find('@') != std::string_view::npos ||
        authority.front() == ':') {
        return std::nullopt;
    }
    HttpUrl out;
    out.origin = std::string(url.substr(0, scheme_end)) + std::string(authority);
    out.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
    return out;
}

Result<std::unique_ptr<RemoteSession>> RemoteSession::start(const BackendSpec& spec,
                                                            NotificationFn on_notification,
                                                            ClosedFn on_closed) {
    auto url = parse_http_url(spec.url);
    if (!url) {
        return Status{Errc::invalid_argument, "not an http:// or https:// URL"};
    }
    return std::unique_ptr<RemoteSession>(
        new RemoteSession(spec, std::move(*url), std::move(on_notification), std::move(on_closed)));
}

RemoteSession::RemoteSession(const BackendSpec& spec, HttpUrl url, NotificationFn n, ClosedFn c)
    : name_(spec.name),
      url_(std::move(url)),
      headers_(spec.headers),
      on_notification_(std::move(n)),
      on_closed_(std::move(c)) {}

RemoteSession::~RemoteSession() {
    close();
}

void RemoteSession::end(const std::string& why) {
    bool first = false;
    {
        std::lock_guard lock(mutex_);
        first = !closed_.exchange(true);
    }
    if (first) {
        log_line("backend '" + detail::printable(name_) + "' session ended: " + why);
        if (on_closed_) {
            on_closed_();
        }
    }
}

void RemoteSession::close() {
    std::call_once(close_once_, [this] {
        std::string session_id;
        std::unique_ptr<RemoteStream> stream;
        {
            std::lock_guard lock(mutex_);
            closed_.store(true);
            for (httplib::Client* c : in_flight_) {
                c->stop();  // pending requests fail at once
            }
            session_id = session_id_;
            stream = std::move(stream_);
        }
        if (stream) {
            stream->stop();
        }
        if (!session_id.empty()) {  // tell the server, briefly; it forgets idle sessions anyway
            httplib::Client client(url_.origin);
            set_timeouts(client, kDeleteTimeout);
            httplib::Headers headers(headers_.begin(), headers_.end());
            headers.emplace("Mcp-Session-Id", session_id);
            (void)client.Delete(url_.path, headers);
        }
    });
}

void RemoteSession::on_initialized() {
    std::lock_guard lock(mutex_);
    if (closed_.load() || stream_) {
        return;
    }
    RemoteStreamSpec spec{name_, url_.origin, url_.path, headers_};
    if (!session_id_.empty()) {
        spec.headers["Mcp-Session-Id"] = session_id_;
    }
    if (!protocol_version_.empty()) {
        spec.headers["MCP-Protocol-Version"] = protocol_version_;
    }
    stream_ = std::make_unique<RemoteStream>(
        std::move(spec),
        [this](const std::string& data) { handle_stream_message(data); },
        [this](const std::string& why) { end(why); });
}

void RemoteSession::handle_stream_message(const std::string& data) {
    Message m = classify(data);
    // Progress, logging and requests to the client during a tool call go to its caller.
    if (route_to_call(relay_routes(), m, [this, method = m.method](const Json& reply) {
            if (auto r = post(reply, nullptr, kConnectTimeout, nullptr, nullptr, false, nullptr);
                !r) {
                log_line("backend '" + detail::printable(name_) + "': the answer to its " +
                         detail::clipped(method) + " failed: " + r.status().message());
            }
        })) {
        return;
    }
    switch (m.kind) {
        case MessageKind::notification:
            if (on_notification_) {
                on_notification_(m.method, m.body.value("params", Json()));
            }
            return;
        case MessageKind::request: {
            // Besides the requests relayed to a caller (above), the gateway only answers ping.
            const Json reply =
                m.method == "ping"
                    ? make_result(m.id, Json::object())
                    : make_error(
                          m.id, kMethodNotFound, "Method not found: " + detail::clipped(m.method));
            if (auto r = post(reply, nullptr, kConnectTimeout, nullptr, nullptr, false, nullptr);
                !r) {
                log_line("backend '" + detail::printable(name_) + "': the answer to its " +
                         detail::clipped(m.method) + " failed: " + r.status().message());
            }
            return;
        }
        default:
            break;
    }
    ++unusable_stream_messages_;
    if (unusable_stream_messages_ <= 5 || unusable_stream_messages_ % 1000 == 0) {
        log_line("backend '" + detail::printable(name_) + "' sent a " +
                 (m.kind == MessageKind::response ? std::string("response")
                                                  : "malformed message (" + m.error + ")") +
                 " on its GET stream, ignored");
    }
}

Status RemoteSession::notify(const std::string& method, Json params) {
    auto r = post(make_notification(method, std::move(params)),
                  nullptr,
                  kConnectTimeout,
                  nullptr,
                  nullptr,
                  false,
                  nullptr);
    return r ? Status{} : r.status();
}

Result<Json> RemoteSession::exchange(const std::string& method,
                                     Json params,
                                     const RequestOptions& options) {
    std::int64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        id = next_id_++;
    }
    auto result = post(make_request(id, method, std::move(params)),
                       id,
                       options.timeout,
                       options.cancel,
                       options.answer_bytes,
                       options.accept_pruned,
                       options.error);
    if (!result && result.status().code() == Errc::unavailable && options.cancel_on_timeout &&
        !closed_.load()) {
        (void)notify(
            "notifications/cancelled",
            Json{{"requestId", id},
                 {"reason",
                  options.cancel && options.cancel->cancelled() ? options.cancel->reason()
                                                                : std::string("timeout")}});
    }
    if (result && method == "initialize" && result->is_object()) {
        std::lock_guard lock(mutex_);
        protocol_version_ = result->value("protocolVersion", std::string());
    }
    return result;
}

Result<Json> RemoteSession::post(const Json& message,
                                 const Json& id,
                                 std::chrono::milliseconds timeout,
                                 const std::shared_ptr<CancelToken>& cancel,
                                 std::size_t* answer_bytes,
                                 bool accept_pruned,
                                 Json* error_out) {
    auto client = std::make_unique<httplib::Client>(url_.origin);
    set_timeouts(*client, timeout);
    client->set_keep_alive(false);
    httplib::Request req;
    req.method = "POST";
    req.path = url_.path;
    req.headers = httplib::Headers(headers_.begin(), headers_.end());
    req.headers.emplace("Content-Type", "application/json");
    req.headers.emplace("Accept", "application/json, text/event-stream");
    // A modern message (the probe, or any request once the server is modern) is stateless: its
    // headers mirror its body and it carries no session.
    const bool modern = modern::carries_envelope(message);
    if (modern) {
        const modern::ModernHeaders h = modern::request_headers(message);
        for (const auto& [key, value] : {std::pair{"MCP-Protocol-Version", h.protocol_version},
                                         std::pair{"Mcp-Method", h.method},
                                         std::pair{"Mcp-Name", h.name}}) {
            if (value) {
                req.headers.emplace(key, *value);
            }
        }
    }
    bool in_session = false;  // a 404 then means the server forgot the session
    {
        std::lock_guard lock(mutex_);
        if (closed_.load()) {
            return Status{Errc::unavailable, "the session with the remote server has ended"};
        }
        if (!modern && !session_id_.empty()) {
            req.headers.emplace("Mcp-Session-Id", session_id_);
            in_session = true;
        }
        if (!modern && !protocol_version_.empty()) {
            req.headers.emplace("MCP-Protocol-Version", protocol_version_);
        }
        in_flight_.insert(client.get());
    }
    req.body = to_line(message);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    BoundedBody got{kMaxAnswerBytes, deadline};
    req.content_receiver = got.receiver();
    if (cancel) {
        cancel->on_cancel([c = client.get()] { c->stop(); });
    }
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    const bool sent = client->send(req, res, error);
    if (cancel) {
        cancel->on_cancel({});  // after this the hook no longer runs: the client may go
    }
    {
        std::lock_guard lock(mutex_);
        in_flight_.erase(client.get());
    }
    if (cancel && cancel->cancelled()) {
        return Status{Errc::unavailable, "cancelled: " + cancel->reason()};
    }
    if (closed_.load()) {
        return Status{Errc::unavailable, "the session with the remote server has ended"};
    }
    if (got.too_big) {
        return Status{Errc::invalid_argument,
                      "the answer is over " + std::to_string(kMaxAnswerBytes) + " bytes"};
    }
    // A slow answer is this request's failure; the session stays (other calls may be fine).
    if (got.late || (!sent && std::chrono::steady_clock::now() >= deadline)) {
        return Status{Errc::unavailable,
                      message.value("method", std::string("request")) + " timed out after " +
                          std::to_string(timeout.count()) + " ms"};
    }
    if (!sent) {
        end("cannot reach " + url_.origin + url_.path + ": " + httplib::to_string(error));
        return Status{Errc::unavailable,
                      "cannot reach the remote server: " + httplib::to_string(error)};
    }
    if (res.status == 404 && in_session && !id.is_null()) {
        end("the server no longer knows the session (404)");
        return Status{Errc::unavailable, "the remote server ended the session"};
    }
    if (res.status == 202 || (id.is_null() && res.status >= 200 && res.status < 300)) {
        return Json();
    }
    if (res.status < 200 || res.status >= 300) {
        std::string why = "the remote server answered HTTP " + std::to_string(res.status);
        // A modern server answers protocol errors with a 4xx and a JSON-RPC error: keep it, so
        // the caller can tell a modern refusal from a legacy server's.
        if (Message m = classify(got.text); m.kind == MessageKind::response && !m.too_deep) {
            if (auto e = m.body.find("error"); e != m.body.end() && e->is_object()) {
                if (auto text = e->find("message"); text != e->end() && text->is_string()) {
                    why += ": " + detail::clipped(text->get<std::string>(), 4096);
                }
                if (error_out != nullptr) {
                    *error_out = *e;
                }
                if (modern) {  // a refusal of this request, not a broken session
                    return Status{Errc::invalid_argument, why};
                }
            }
        }
        return Status{Errc::unavailable, why};
    }
    if (auto sid = res.get_header_value("Mcp-Session-Id"); !sid.empty() && !modern) {
        std::lock_guard lock(mutex_);
        if (session_id_.empty()) {
            session_id_ = sid;
        }
    }
    std::vector<std::string> messages;
    if (media_type(res.get_header_value("Content-Type")) == "text/event-stream") {
        messages = sse_event_data(got.text);
    } else {
        messages.push_back(std::move(got.text));
    }
    for (const std::string& text : messages) {
        Message m = classify(text);
        if (m.kind == MessageKind::notification &&
            route_to_call(relay_routes(), m, [](const Json&) {})) {
            continue;  // a notification of a relayed call: its caller has it
        }
        if (m.kind == MessageKind::notification && on_notification_) {
            on_notification_(m.method, m.body.value("params", Json()));
            continue;
        }
        if (m.kind != MessageKind::response || m.id != id) {
            continue;
        }
        if (m.too_deep && !accept_pruned) {
            return Status{Errc::invalid_argument, "the answer is nested too deep"};
        }
        if (answer_bytes != nullptr) {
            *answer_bytes = text.size();
        }
        if (auto e = m.body.find("error"); e != m.body.end()) {
            const std::string what =
                e->is_object() && e->contains("message") && (*e)["message"].is_string()
                    ? (*e)["message"].get<std::string>()
                    : std::string("error");
            if (error_out != nullptr && e->is_object() && !m.too_deep) {
                *error_out = *e;
            }
            return Status{Errc::invalid_argument, detail::clipped(what, 4096)};
        }
        return m.body.value("result", Json());
    }
    return Status{Errc::invalid_argument, "the remote server's answer holds no response"};
}

}  // namespace scout::gateway
