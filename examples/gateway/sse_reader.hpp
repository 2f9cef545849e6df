// sse_reader.hpp: an incremental text/event-stream parser for a long-lived stream: bytes go in as
// they arrive (cut anywhere, even between a CR and its LF), complete events come out. Bounded: a
// line or an event over its limit is an error and the caller drops the stream, so a server cannot
// grow the gateway's memory without end. sse_event_data (http_rules.hpp) reads a whole body with
// it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace scout::gateway {

class SseReader {
public:
    struct Limits {
        std::size_t max_line = 1u << 20;   ///< bytes of one line, without its end
        std::size_t max_event = 4u << 20;  ///< bytes of one event's data
    };
    using EventFn = std::function<void(std::string data)>;

    explicit SseReader(Limits limits) : limits_(limits) {}
    SseReader() : SseReader(Limits{}) {}

    /// Feeds the next bytes; calls on_event with the data of each event they complete (events
    /// without data lines are skipped). false once a limit is crossed (see error()); the
    /// reader then takes no more bytes.
    [[nodiscard]] bool feed(std::string_view bytes, const EventFn& on_event);
    /// The end of a whole body: a line still open is read, and an event still open counts (a
    /// live stream that drops mid-event loses that event instead, so it never calls this).
    void finish(const EventFn& on_event);
    /// The last "id:" of a dispatched event (for Last-Event-ID when reconnecting).
    [[nodiscard]] const std::string& last_event_id() const noexcept { return last_id_; }
    [[nodiscard]] const std::string& error() const noexcept { return error_; }

private:
    bool line(std::string_view text, const EventFn& on_event);

    Limits limits_;
    std::string partial_;    ///< the line read so far
    bool after_cr_ = false;  ///< the last byte ended a line with CR: an LF next belongs to it
    std::string data_;
    bool has_data_ = false;
    std::string id_;  ///< of the event being read
    std::string last_id_;
    std::string error_;
};

}  // namespace scout::gateway
