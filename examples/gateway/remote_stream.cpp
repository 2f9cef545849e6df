// remote_stream.cpp: see remote_stream.hpp.
#include "remote_stream.hpp"

#include <httplib.h>

#include "http_rules.hpp"
#include "log.hpp"
#include "printable.hpp"
#include "sse_reader.hpp"

namespace scout::gateway {
namespace {

void set_timeout(httplib::Client& client, std::chrono::milliseconds d, bool connect) {
    const auto s = static_cast<time_t>(d.count() / 1000);
    const auto us = static_cast<time_t>((d.count() % 1000) * 1000);
    if (connect) {
        client.set_connection_timeout(s, us);
    } else {
        client.set_read_timeout(s, us);
        client.set_write_timeout(s, us);
    }
}

}  // namespace

RemoteStream::RemoteStream(RemoteStreamSpec spec,
                           MessageFn on_message,
                           GoneFn on_gone,
                           RemoteStreamTimings timings)
    : spec_(std::move(spec)),
      on_message_(std::move(on_message)),
      on_gone_(std::move(on_gone)),
      timings_(timings) {
    thread_ = std::thread([this] { run(); });
}

RemoteStream::~RemoteStream() {
    stop();
}

void RemoteStream::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        if (client_ != nullptr) {
            client_->stop();  // the blocked read fails at once
        }
    }
    cv_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

bool RemoteStream::wait(std::chrono::milliseconds d) {
    std::unique_lock lock(mutex_);
    return !cv_.wait_for(lock, d, [this] { return stopping_; });
}

void RemoteStream::run() {
    const std::string who = "backend '" + detail::printable(spec_.name) + "'";
    auto backoff = timings_.initial_backoff;
    for (;;) {
        std::string why;
        std::chrono::steady_clock::time_point opened_at;
        const Outcome outcome = attempt(why, opened_at);
        switch (outcome) {
            case Outcome::stopped:
                return;
            case Outcome::not_offered:
                log_line(std::string(who)
                             .append(" offers no GET stream (")
                             .append(why)
                             .append("); its own messages arrive only with responses"));
                return;
            case Outcome::gone:
                if (on_gone_) {
                    on_gone_(why);
                }
                return;
            case Outcome::idle:
                backoff = timings_.initial_backoff;
                continue;
            case Outcome::dropped:  // after a long while open, the server may well be fine
                if (std::chrono::steady_clock::now() - opened_at >= timings_.max_backoff) {
                    backoff = timings_.initial_backoff;
                }
                break;
            case Outcome::refused:
            case Outcome::unreachable:
                break;
        }
        log_line(std::string(who)
                     .append(" GET stream: ")
                     .append(why)
                     .append("; reopening in ")
                     .append(std::to_string(backoff.count()))
                     .append(" ms"));
        if (!wait(backoff)) {
            return;
        }
        backoff = std::min(backoff * 2, timings_.max_backoff);
    }
}

RemoteStream::Outcome RemoteStream::attempt(std::string& why,
                                            std::chrono::steady_clock::time_point& opened_at) {
    httplib::Client client(spec_.origin);
    set_timeout(client, timings_.connect_timeout, true);
    set_timeout(client, timings_.idle_timeout, false);
    client.set_keep_alive(false);
    httplib::Request req;
    req.method = "GET";
    req.path = spec_.path;
    req.headers = httplib::Headers(spec_.headers.begin(), spec_.headers.end());
    req.headers.emplace("Accept", "text/event-stream");
    if (!last_event_id_.empty()) {
        req.headers.emplace("Last-Event-ID", last_event_id_);
    }
    int status = 0;
    opened_at = {};
    bool event_stream = false;
    req.response_handler = [&](const httplib::Response& res) {
        status = res.status;
        opened_at = std::chrono::steady_clock::now();
        event_stream = media_type(res.get_header_value("Content-Type")) == "text/event-stream";
        return status == 200 && event_stream;  // anything else: not read further
    };
    SseReader reader;
    auto last_bytes = std::chrono::steady_clock::now();
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        {
            std::lock_guard lock(mutex_);
            if (stopping_) {
                return false;
            }
        }
        last_bytes = std::chrono::steady_clock::now();
        return reader.feed(std::string_view(data, n), [&](const std::string& event) {
            if (on_message_) {
                on_message_(event);
            }
        });
    };
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            return Outcome::stopped;
        }
        client_ = &client;
    }
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    const bool sent = client.send(req, res, error);
    {
        std::lock_guard lock(mutex_);
        client_ = nullptr;
        if (stopping_) {
            return Outcome::stopped;
        }
    }
    last_event_id_ = reader.last_event_id().empty() ? last_event_id_ : reader.last_event_id();
    if (!reader.error().empty()) {
        why = "dropped: " + reader.error();
        return Outcome::dropped;
    }
    if (status == 405) {
        why = "HTTP 405";
        return Outcome::not_offered;
    }
    if (status == 404) {
        why = "the server no longer knows the session (404 on GET)";
        return Outcome::gone;
    }
    if (status != 0 && (status != 200 || !event_stream)) {
        why = "the server answered HTTP " + std::to_string(status) +
              (status == 200 ? " without text/event-stream" : "");
        return Outcome::refused;
    }
    if (status == 0) {
        why = "cannot reach " + spec_.origin + spec_.path + ": " + httplib::to_string(error);
        return Outcome::unreachable;
    }
    if (!sent && error == httplib::Error::Read &&
        std::chrono::steady_clock::now() - last_bytes >= timings_.idle_timeout) {
        return Outcome::idle;
    }
    why = sent ? "the server ended it" : "dropped: " + httplib::to_string(error);
    return Outcome::dropped;
}

}  // namespace scout::gateway
