// http_messages.cpp: what a handler of the listener touches: a request's headers, the event
// stream it answers with, and the Responder that sends its answer to the I/O thread.
#include <algorithm>
#include <cctype>

#include "http_server.hpp"
#include "http_server_core.hpp"

namespace scout::gateway {

bool server_detail::iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

using server_detail::iequals;

std::string HttpRequest::header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
        if (iequals(k, name)) {
            return v;
        }
    }
    return {};
}

bool HttpRequest::has_header(std::string_view name) const {
    return std::any_of(
        headers.begin(), headers.end(), [&](const auto& kv) { return iequals(kv.first, name); });
}

EventStream::~EventStream() {
    EventStreamPump::end(*this);  // a stream never carried still reports its end
}

std::function<void()> EventStream::claim_wake() {
    if (wake_pending_ || !wake_) {
        return nullptr;
    }
    wake_pending_ = true;
    return wake_;
}

bool EventStream::write(std::string data) {
    std::function<void()> wake;
    bool dropped = false;
    {
        std::lock_guard lock(mutex_);
        if (ended_ || finishing_) {
            return false;
        }
        queued_bytes_ += data.size();
        queued_.push_back(std::move(data));
        // A client reading slower than events come loses the oldest unsent ones, not the stream.
        while (queued_bytes_ > max_buffer_ && queued_.size() > 1) {
            queued_bytes_ -= queued_.front().size();
            queued_.pop_front();
            dropped = true;
        }
        wake = claim_wake();
    }
    if (wake) {
        wake();
    }
    return !dropped;
}

void EventStream::finish(std::string last) {
    std::function<void()> wake;
    {
        std::lock_guard lock(mutex_);
        if (ended_ || finishing_) {
            return;
        }
        if (!last.empty()) {
            queued_bytes_ += last.size();
            queued_.push_back(std::move(last));
        }
        finishing_ = true;
        wake = claim_wake();
    }
    if (wake) {
        wake();
    }
}

bool EventStream::ended() const {
    std::lock_guard lock(mutex_);
    return ended_;
}
void Responder::operator()(HttpResponse response) const {
    if (!state_->used.exchange(true)) {
        state_->send(std::move(response));
    }
}

void Responder::on_send(std::function<void(HttpResponse&)> before) const {
    state_->before = std::move(before);
}
}  // namespace scout::gateway
