// post_stream.hpp: the response of one Streamable HTTP POST whose call relays a backend's
// messages to the caller. Until the first relayed message the POST is answered as usual (one
// JSON body); the first one turns the response into an event stream that carries the relayed
// messages in order and ends with the call's answer, as the MCP transport asks for messages
// related to a request.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "http_server.hpp"

namespace scout::gateway {

/// Thread-safe: relayed messages come from backend threads, the answer from the call's thread.
class PostStream {
public:
    /// `respond` answers the POST; `event_stream`: the caller accepts text/event-stream (else
    /// nothing can be relayed and send() refuses).
    PostStream(Responder respond, bool event_stream)
        : respond_(std::move(respond)), event_stream_(event_stream) {}

    /// One relayed JSON-RPC line: false when it cannot go (no event stream accepted, the call
    /// answered, or the client reading too slowly to keep it).
    bool send(const std::string& line) {
        std::lock_guard lock(mutex_);
        if (!event_stream_ || answered_) {
            return false;
        }
        if (!stream_) {
            stream_ = std::make_shared<EventStream>();
            HttpResponse r;
            r.content_type = "text/event-stream";
            r.set_header("Cache-Control", "no-cache");
            r.stream = stream_;
            respond_(std::move(r));
        }
        return stream_->write(event(line));
    }

    /// The call's answer: true when it went on the event stream (the POST is answered), false
    /// when no message was relayed and the caller answers the POST the usual way. An empty
    /// `line` (a cancelled call) just ends the stream.
    bool finish(const std::string& line) {
        std::lock_guard lock(mutex_);
        answered_ = true;
        if (!stream_) {
            return false;
        }
        stream_->finish(line.empty() ? std::string() : event(line));
        return true;
    }

private:
    static std::string event(const std::string& line) {
        return "event: message\ndata: " + line + "\n\n";
    }

    Responder respond_;
    bool event_stream_;
    std::mutex mutex_;
    std::shared_ptr<EventStream> stream_;
    bool answered_ = false;
};

}  // namespace scout::gateway
