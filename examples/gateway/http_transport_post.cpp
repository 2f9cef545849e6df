// http_transport_post.cpp: a POSTed JSON-RPC message of either era: a legacy one on its session
// (initialize opens one), a stateless 2026-07-28 one by its envelope, and their cancellations.
#include "http_transport_impl.hpp"
#include "http_transport_parts.hpp"
#include "modern_protocol.hpp"
#include "post_stream.hpp"
#include "printable.hpp"

namespace scout::gateway {

using transport_detail::busy;
using transport_detail::json_answer;
using transport_detail::json_error;
using transport_detail::kJson;
using transport_detail::status_only;

void HttpTransport::Impl::post(const HttpRequest& req, const Who& who, const Responder& respond) {
    if (media_type(req.header("Content-Type")) != kJson) {
        respond(json_error(415,
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
                m->too_deep ? make_error(m->id, kInvalidRequest, "the answer is nested too deep")
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
    auto work = [this, m, session, token, key, new_session, accept, relayed, tools = who.tools]() {
        Json answer;
        if (relayed) {
            CallerChannel caller;
            caller.send = [relayed](const std::string& line) { return relayed->send(line); };
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

void HttpTransport::Impl::post_modern(const HttpRequest& req,
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

void HttpTransport::Impl::cancel_modern(const Who& who, const Json& params) {
    auto id = params.is_object() ? params.find("requestId") : params.end();
    if (!params.is_object() || id == params.end()) {
        return;
    }
    std::shared_ptr<CancelToken> token;
    {
        std::lock_guard lock(mutex_);
        if (auto it = modern_calls_.find(who.key + '\n' + id->dump()); it != modern_calls_.end()) {
            token = it->second;
        }
    }
    if (token) {
        token->cancel("cancelled by the client");
    }
}

}  // namespace scout::gateway
