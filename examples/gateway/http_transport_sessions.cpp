// http_transport_sessions.cpp: the transport's sessions and event streams: opening, finding and
// ending a session, the GET stream, subscriptions/listen, and the notifications they carry.
#include <chrono>

#include "http_transport_impl.hpp"
#include "http_transport_parts.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {

using transport_detail::busy;
using transport_detail::json_answer;
using transport_detail::json_error;
using transport_detail::kEventStream;
using transport_detail::random_session_id;
using transport_detail::sse_event;
using transport_detail::status_only;

std::shared_ptr<HttpTransport::Impl::Session> HttpTransport::Impl::find_session(
    const HttpRequest& req, const Who& who, std::optional<HttpResponse>& refusal) {
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
        refusal = json_error(404, nullptr, kInvalidRequest, "Session not found: initialize again");
        return nullptr;
    }
    it->second->last_used = std::chrono::steady_clock::now();
    return it->second;
}

std::shared_ptr<HttpTransport::Impl::Session> HttpTransport::Impl::open_session(const Who& who) {
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

void HttpTransport::Impl::close_session(Session& s) {
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

std::optional<HttpResponse> HttpTransport::Impl::take_stream(const Who& who, const Json& id) {
    // (called with mutex_ held)
    if (stopping_ || open_streams_ >= options_.limits.max_streams) {
        HttpResponse r = json_error(503, id, kServerBusy, "Server busy: too many event streams");
        r.set_header("Retry-After", "5");
        return r;
    }
    std::size_t& mine = streams_by_caller_[who.key];
    if (mine >= options_.limits.max_streams_per_caller) {
        HttpResponse r = json_error(
            429,
            id,
            kServerBusy,
            "Too many requests: this caller has " + std::to_string(mine) + " event streams open");
        r.set_header("Retry-After", "5");
        return r;
    }
    ++mine;
    ++open_streams_;
    return std::nullopt;
}

void HttpTransport::Impl::give_back_stream(const std::string& key) {
    // (called with mutex_ held)
    --open_streams_;
    if (auto it = streams_by_caller_.find(key);
        it != streams_by_caller_.end() && --it->second == 0) {
        streams_by_caller_.erase(it);
    }
}

HttpResponse HttpTransport::Impl::listen(const Message& m, const Who& who) {
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

void HttpTransport::Impl::cancel(Session& s, const Json& params) {
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

HttpResponse HttpTransport::Impl::get(const HttpRequest& req, const Who& who) {
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

HttpResponse HttpTransport::Impl::remove(const HttpRequest& req, const Who& who) {
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

void HttpTransport::Impl::broadcast_list_changed() {
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

void HttpTransport::Impl::deliver(const std::vector<std::string>& ids, const std::string& line) {
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

}  // namespace scout::gateway
