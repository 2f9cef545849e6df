// http_server.hpp: an HTTP/1.1 server built for hostile networks, knowing nothing of MCP. One
// I/O thread (Boost.Beast on Boost.Asio) reads every request head and body without holding a
// worker, under limits enforced before any handler runs: header bytes and count (431), body
// bytes for sized and chunked bodies alike (413 as soon as crossed, the rest never read), a
// deadline for the whole head and for the whole body (408), total and per-address connection
// caps (the oldest idle connection gives way first, else 503 with Retry-After at once), and a
// budget for the bodies held in memory at once. Complete requests go to the handler, which
// answers through a Responder from any thread; responses may be event streams (chunked, with
// keep-alive comments). TLS 1.2+ when given a certificate and key.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scout/status.hpp"

namespace scout::gateway {

struct HttpServerLimits {
    std::size_t max_header_bytes = 16u << 10;  ///< the whole request head; beyond it 431
    std::size_t max_header_count = 100;        ///< header fields; beyond it 431
    std::size_t max_body_bytes = 4u << 20;     ///< sized or chunked; beyond it 413 at once
    /// Bytes of request bodies held at once over every connection, beyond each body's first
    /// 64 KiB (which the connection cap already bounds); a body that would cross it gets 503.
    std::size_t max_body_bytes_in_flight = 64u << 20;
    std::chrono::milliseconds head_timeout{10'000};   ///< TLS handshake and the whole head
    std::chrono::milliseconds body_timeout{30'000};   ///< the whole body
    std::chrono::milliseconds write_timeout{10'000};  ///< one response, or one stream write
    std::chrono::milliseconds keep_alive{5'000};      ///< idle between requests
    std::size_t max_connections = 512;                ///< open at once
    std::size_t max_connections_per_address = 256;    ///< open at once from one client address
    std::size_t max_requests_per_connection = 1000;
    std::chrono::milliseconds stream_ping{15'000};  ///< an SSE comment on a quiet stream
    std::size_t max_stream_buffer = 256u << 10;     ///< unsent stream bytes; beyond it, it ends
};

struct TlsFiles {
    std::string certificate_chain;  ///< PEM file
    std::string private_key;        ///< PEM file
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    std::string method;  ///< as sent ("GET", "POST"...)
    std::string target;  ///< the request target, query included
    HttpHeaders headers;
    std::string body;          ///< empty when the head is checked
    std::string peer_address;  ///< the client's IP address as text
    [[nodiscard]] std::string path() const { return target.substr(0, target.find('?')); }
    /// The first field named `name` (case-insensitive), or "" when there is none.
    [[nodiscard]] std::string header(std::string_view name) const;
    [[nodiscard]] bool has_header(std::string_view name) const;
};

/// The body of a streamed response (text/event-stream), fed from any thread. Thread-safe.
class EventStream {
public:
    /// `on_end` runs once, on the server's thread, when the stream is over for any reason (the
    /// client went away, finish() was flushed, the server stopped).
    explicit EventStream(std::function<void()> on_end = {}) : on_end_(std::move(on_end)) {}
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;
    ~EventStream();

    /// Queues `data` (one whole event) for the client. When the unsent events pass the
    /// server's max_stream_buffer (a client reading slower than events come), the oldest unsent
    /// ones are dropped, and write() says so by returning false; a client that stops reading
    /// altogether is closed at the write timeout. False too once the stream has ended.
    bool write(std::string data);
    /// Ends the stream after what is queued and `last`. Idempotent.
    void finish(std::string last = {});
    [[nodiscard]] bool ended() const;

private:
    friend class EventStreamPump;
    /// The wake to call once the lock is released, or null when one is already pending (a
    /// flood of events is one pump). Called with mutex_ held.
    std::function<void()> claim_wake();
    std::function<void()> on_end_;
    mutable std::mutex mutex_;
    std::deque<std::string> queued_;  ///< whole events not yet handed to the connection
    std::size_t queued_bytes_ = 0;
    std::function<void()> wake_;  ///< set while a connection carries the stream
    bool wake_pending_ = false;   ///< one wake at a time: a flood of events is one pump
    std::size_t max_buffer_ = 256u << 10;
    bool finishing_ = false;
    bool ended_ = false;
};

struct HttpResponse {
    int status = 200;
    HttpHeaders headers;  ///< besides Content-Type and Content-Length
    std::string content_type;
    std::string body;
    std::shared_ptr<EventStream> stream;  ///< non-null: a chunked event stream instead of body
    bool close = false;                   ///< close the connection after this response

    HttpResponse& set_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
};

/// Delivers the answer to one request, once, from any thread. A Responder dropped unused
/// answers 500, so a request is never left hanging.
class Responder {
public:
    struct State;
    explicit Responder(std::shared_ptr<State> state) : state_(std::move(state)) {}
    void operator()(HttpResponse response) const;
    /// Runs `before` on the response (this one's or a copy's, the 500 of a dropped one too)
    /// just before it is sent: e.g. to stamp a request id. Set it before the Responder is
    /// handed to another thread.
    void on_send(std::function<void(HttpResponse&)> before) const;

private:
    std::shared_ptr<State> state_;
};

/// Runs on the I/O thread once a request's head has arrived, before its body is read: a quick,
/// non-blocking look (route, origin, credentials) that may answer at once, so an unwelcome
/// request's body is never read.
using HeadCheck = std::function<std::optional<HttpResponse>(const HttpRequest& head)>;
/// Runs on the I/O thread with the complete request; must not block: hand the work to a
/// thread of its own and answer through `respond`.
using RequestHandler = std::function<void(HttpRequest request, Responder respond)>;
/// The response the server sends for its own refusals (400, 408, 413, 431, 503), given the
/// status and a sentence.
using ErrorResponse = std::function<HttpResponse(int status, const std::string& message)>;

struct HttpServerOptions {
    std::string host = "127.0.0.1";
    int port = 0;  ///< 0: any free port
    HttpServerLimits limits;
    std::optional<TlsFiles> tls;
    HeadCheck check_head;
    RequestHandler handle;
    ErrorResponse error_response;
};

/// What the server has refused, for metrics. Every count only grows.
struct HttpServerCounts {
    std::uint64_t connections = 0;       ///< accepted
    std::uint64_t shed = 0;              ///< refused at the caps (503, or closed)
    std::uint64_t evicted = 0;           ///< idle connections closed to make room
    std::uint64_t timeouts = 0;          ///< heads or bodies late (408)
    std::uint64_t too_large = 0;         ///< heads (431) or bodies (413) over their limit
    std::uint64_t bad_requests = 0;      ///< unparseable (400)
    std::uint64_t open_connections = 0;  ///< open now (not a count)
};

/// Thread-safe: stop() may be called from any thread while serve() runs.
class HttpServer {
public:
    explicit HttpServer(HttpServerOptions options);
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;
    ~HttpServer();

    /// Loads the TLS files (if any) and binds. invalid_argument for unusable TLS files,
    /// io_error when the address cannot be bound.
    [[nodiscard]] Status bind();
    [[nodiscard]] int port() const;
    /// Serves on the calling thread until stop(). Call once, after bind().
    void serve();
    /// Stops accepting, lets finishing event streams flush (briefly), closes every
    /// connection and returns serve(). Idempotent.
    void stop();
    [[nodiscard]] HttpServerCounts counts() const;

    struct Core;

private:
    std::shared_ptr<Core> core_;
};

}  // namespace scout::gateway
