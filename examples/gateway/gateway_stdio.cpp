// gateway_stdio.cpp: the stdio client's lines: classified, answered at once or handed to the
// call pool, with its cancellations, subscriptions/listen and back-pressure rules.
#include <string>

#include "gateway.hpp"
#include "log.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {

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

}  // namespace scout::gateway
