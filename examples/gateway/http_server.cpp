// http_server.cpp: see http_server.hpp. Every connection lives on one I/O thread; its state
// (phase, deadline, buffers) is touched only there, and other threads reach it by posting.
#include "http_server.hpp"

#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <list>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "file_io.hpp"

namespace scout::gateway {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace {

/// The first bytes of every body are not charged to the shared budget: the connection cap
/// already bounds them, and the small requests of legitimate callers never wait on a flood.
constexpr std::size_t kFreeBodyBytes = 64u << 10;
/// Connections being refused (503) at once; beyond it they are closed without an answer.
constexpr std::size_t kMaxShedding = 64;
/// How long a refused or finished connection may take to read our answer before it is closed.
constexpr std::chrono::milliseconds kLinger{1000};
/// How much of an unread request a closing connection drops (rather than reset the connection
/// under the client's feet before it has read the answer).
constexpr std::size_t kLingerBytes = 1u << 20;
/// How long finishing event streams may flush when the server stops.
constexpr std::chrono::milliseconds kStopGrace{1000};
/// Freed request memory worth handing back to the system (malloc_trim) after a flood.
constexpr std::size_t kTrimAfterBytes = 8u << 20;
constexpr std::size_t kMaxTlsFileBytes = 1u << 20;

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

std::string text(beast::string_view s) {
    return {s.data(), s.size()};
}

HttpResponse plain_error(int status, const std::string& message) {
    HttpResponse r;
    r.status = status;
    r.content_type = "text/plain";
    r.body = message + "\n";
    return r;
}

/// Answers what is already written, then closes: the write side is shut, and what the client
/// still sends is read and dropped (bounded in bytes and time), so closing with unread data
/// does not reset the connection before the client has read the answer.
class Lingerer : public std::enable_shared_from_this<Lingerer> {
public:
    Lingerer(std::shared_ptr<tcp::socket> socket, net::io_context& ioc)
        : socket_(std::move(socket)), timer_(ioc, kLinger) {}
    void start() {
        error_code ignored;
        socket_->shutdown(tcp::socket::shutdown_send, ignored);
        timer_.async_wait([self = shared_from_this()](error_code ec) {
            if (!ec) {
                self->close();
            }
        });
        read();
    }

private:
    void read() {
        socket_->async_read_some(net::buffer(scratch_),
                                 [self = shared_from_this()](error_code ec, std::size_t n) {
                                     if (ec || n >= self->left_) {
                                         self->timer_.cancel();
                                         self->close();
                                         return;
                                     }
                                     self->left_ -= n;
                                     self->read();
                                 });
    }
    void close() {
        error_code ignored;
        socket_->close(ignored);
    }

    std::shared_ptr<tcp::socket> socket_;
    net::steady_timer timer_;
    std::array<char, 4096> scratch_{};
    std::size_t left_ = kLingerBytes;
};

void linger_close(std::shared_ptr<tcp::socket> socket, net::io_context& ioc) {
    std::make_shared<Lingerer>(std::move(socket), ioc)->start();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Requests and streams

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

/// The server's side of an EventStream.
class EventStreamPump {
public:
    struct Taken {
        std::string data;
        bool finishing = false;
    };
    static bool attach(EventStream& s, std::function<void()> wake, std::size_t max_buffer) {
        std::lock_guard lock(s.mutex_);
        if (s.ended_) {
            return false;
        }
        s.wake_ = std::move(wake);
        s.max_buffer_ = max_buffer;
        return true;
    }
    static Taken take(EventStream& s) {
        std::lock_guard lock(s.mutex_);
        Taken t;
        t.data.reserve(s.queued_bytes_);
        for (const std::string& event : s.queued_) {
            t.data += event;
        }
        s.queued_.clear();
        s.queued_bytes_ = 0;
        s.wake_pending_ = false;
        t.finishing = s.finishing_;
        return t;
    }
    static bool finishing(const EventStream& s) {
        std::lock_guard lock(s.mutex_);
        return s.finishing_;
    }
    static void end(EventStream& s) {
        std::function<void()> on_end;
        {
            std::lock_guard lock(s.mutex_);
            if (s.ended_) {
                return;
            }
            s.ended_ = true;
            s.wake_ = nullptr;
            on_end = std::move(s.on_end_);
        }
        if (on_end) {
            on_end();
        }
    }
};

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

// ---------------------------------------------------------------------------------------------
// The server's shared state

class ConnectionBase;

struct HttpServer::Core : std::enable_shared_from_this<HttpServer::Core> {
    explicit Core(HttpServerOptions o) : options(std::move(o)) {
        if (!options.error_response) {
            options.error_response = plain_error;
        }
    }

    void start_accepting();
    void on_accept(tcp::socket socket);
    [[nodiscard]] bool evict_one(const std::string* address);
    void shed(tcp::socket socket);
    void track(ConnectionBase* c);
    void untrack(ConnectionBase* c);
    void make_evictable(ConnectionBase* c);
    void make_busy(ConnectionBase* c);
    void stop_now();
    void note_freed(std::size_t bytes);

    HttpServerOptions options;
    std::optional<net::ssl::context> tls;
    std::string shed_text;  ///< the whole 503 answer of a connection over the caps

    // Touched on the I/O thread only.
    std::unordered_set<ConnectionBase*> all;
    std::list<ConnectionBase*> evictable;  ///< idle or still sending a head, oldest first
    std::unordered_map<std::string, std::size_t> per_address;
    std::size_t shedding = 0;
    std::size_t body_bytes_held = 0;  ///< charged beyond each body's free bytes
    std::size_t freed_since_trim = 0;
    bool stopping = false;

    std::atomic<std::uint64_t> accepted{0}, shed_count{0}, evicted{0}, timeouts{0}, too_large{0},
        bad_requests{0}, open{0};
    std::atomic<bool> stop_requested{false};
    int port = 0;

    // Declared last, destroyed first: the handlers it still holds (and the connections they
    // keep) are destroyed while the tables above are alive.
    net::io_context ioc{1};
    tcp::acceptor acceptor{ioc};
    net::steady_timer retry_timer{ioc};
    net::steady_timer trim_timer{ioc};
    net::steady_timer stop_timer{ioc};
};

/// One accepted connection, whatever its transport (plain TCP or TLS).
class ConnectionBase : public std::enable_shared_from_this<ConnectionBase> {
public:
    ConnectionBase(HttpServer::Core& core, std::string address)
        : core_(core), address_(std::move(address)) {}
    ConnectionBase(const ConnectionBase&) = delete;
    ConnectionBase& operator=(const ConnectionBase&) = delete;
    virtual ~ConnectionBase() = default;

    virtual void start() = 0;
    /// Closes at once (eviction, stop).
    virtual void close_now() = 0;
    /// The handler's answer (on the I/O thread).
    virtual void deliver(HttpResponse response) = 0;
    /// Writes what the event stream has queued (on the I/O thread).
    virtual void pump() = 0;
    /// Whether the connection carries an event stream that is finishing (flushed at stop).
    [[nodiscard]] virtual bool flushing() const = 0;

    [[nodiscard]] const std::string& address() const { return address_; }

    // Bookkeeping of HttpServer::Core.
    bool tracked = false;
    bool in_evictable = false;
    std::list<ConnectionBase*>::iterator evictable_at;

protected:
    HttpServer::Core& core_;
    std::string address_;
};

// ---------------------------------------------------------------------------------------------
// Responder

struct Responder::State {
    std::weak_ptr<HttpServer::Core> core;
    std::weak_ptr<ConnectionBase> connection;
    std::atomic<bool> used{false};
    std::function<void(HttpResponse&)> before;  ///< set before the Responder is shared

    State(std::weak_ptr<HttpServer::Core> c, std::weak_ptr<ConnectionBase> conn)
        : core(std::move(c)), connection(std::move(conn)) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
        if (!used.exchange(true)) {
            send(HttpResponse{500, {}, "text/plain", "Internal error: no answer\n", nullptr, true});
        }
    }

    void send(HttpResponse response) const {
        if (before) {
            before(response);
        }
        auto c = core.lock();
        if (!c) {
            if (response.stream) {
                EventStreamPump::end(*response.stream);
            }
            return;
        }
        net::post(c->ioc, [conn = connection, response = std::move(response)]() mutable {
            if (auto live = conn.lock()) {
                live->deliver(std::move(response));
            } else if (response.stream) {
                EventStreamPump::end(*response.stream);
            }
        });
    }
};

void Responder::operator()(HttpResponse response) const {
    if (!state_->used.exchange(true)) {
        state_->send(std::move(response));
    }
}

void Responder::on_send(std::function<void(HttpResponse&)> before) const {
    state_->before = std::move(before);
}

// ---------------------------------------------------------------------------------------------
// A connection

template <class Stream>
class Connection final : public ConnectionBase {
public:
    static constexpr bool kTls = !std::is_same_v<Stream, tcp::socket>;

    Connection(HttpServer::Core& core, std::string address, Stream stream)
        : ConnectionBase(core, std::move(address)),
          stream_(std::move(stream)),
          buffer_(std::max<std::size_t>(core.options.limits.max_header_bytes, 8u << 10) +
                  (8u << 10)),
          timer_(core.ioc) {}
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    ~Connection() override {
        release_budget();
        if (stream_body_) {
            EventStreamPump::end(*stream_body_);
        }
        core_.untrack(this);
    }

    void start() override {
        arm(limits().head_timeout);
        if constexpr (kTls) {
            phase_ = Phase::handshake;
            stream_.async_handshake(net::ssl::stream_base::server, [self = self()](error_code ec) {
                if (self->closed_) {
                    return;
                }
                if (ec) {
                    self->close_now();
                    return;
                }
                self->read_head();
            });
        } else {
            read_head();
        }
    }

    void close_now() override {
        if (closed_) {
            return;
        }
        // Released as this function returns: it may hold the last reference.
        const std::shared_ptr<ConnectionBase> keep = std::move(pinned_);
        closed_ = true;
        timer_.cancel();
        error_code ignored;
        lowest().close(ignored);
        release_budget();
        core_.untrack(this);
        if (stream_body_) {
            EventStreamPump::end(*stream_body_);
            stream_body_.reset();
        }
    }

    void deliver(HttpResponse response) override {
        // The caller holds a reference for as long as this runs.
        pinned_.reset();
        if (closed_ || phase_ != Phase::handling) {
            if (response.stream) {
                EventStreamPump::end(*response.stream);
            }
            return;
        }
        release_budget();
        ++served_;
        const bool keep = keep_alive_ && !response.close && !core_.stopping &&
                          served_ < limits().max_requests_per_connection;
        if (response.stream) {
            start_stream(std::move(response));
        } else {
            write_response(std::move(response), keep);
        }
    }

    void pump() override {
        if (closed_ || writing_ || !stream_body_) {
            return;
        }
        auto taken = EventStreamPump::take(*stream_body_);
        if (!taken.data.empty()) {
            write_chunk(std::move(taken.data));
        } else if (taken.finishing) {
            writing_ = true;
            arm(limits().write_timeout);
            net::async_write(
                stream_, http::make_chunk_last(), [self = self()](error_code ec, std::size_t) {
                    self->writing_ = false;
                    if (self->closed_) {
                        return;
                    }
                    EventStreamPump::end(*self->stream_body_);
                    self->stream_body_.reset();
                    if (ec) {
                        self->close_now();
                    } else {
                        self->finish_connection();
                    }
                });
        } else {
            arm(limits().stream_ping);
        }
    }

    [[nodiscard]] bool flushing() const override {
        return stream_body_ != nullptr && EventStreamPump::finishing(*stream_body_);
    }

private:
    enum class Phase { handshake, head, body, handling, writing, streaming, idle, closing };

    std::shared_ptr<Connection> self() {
        return std::static_pointer_cast<Connection>(shared_from_this());
    }
    const HttpServerLimits& limits() const { return core_.options.limits; }
    tcp::socket& lowest() {
        if constexpr (kTls) {
            return stream_.next_layer();
        } else {
            return stream_;
        }
    }

    /// Starts the one deadline of the current phase.
    void arm(std::chrono::milliseconds after) {
        timed_out_ = false;
        const std::uint64_t generation = ++timer_generation_;
        timer_.expires_after(after);
        timer_.async_wait([self = self(), generation](error_code ec) {
            if (ec || self->closed_ || generation != self->timer_generation_) {
                return;
            }
            self->on_deadline();
        });
    }
    void disarm() {
        ++timer_generation_;
        timer_.cancel();
    }

    void on_deadline() {
        switch (phase_) {
            case Phase::handshake:
            case Phase::head:
            case Phase::body:
                ++core_.timeouts;
                timed_out_ = true;
                if constexpr (kTls) {
                    close_now();  // a cancelled TLS read leaves no stream to answer on
                } else {
                    error_code ignored;
                    lowest().cancel(ignored);  // the read ends with operation_aborted: 408
                }
                return;
            case Phase::streaming:
                if (!writing_) {
                    write_chunk(": ping\n\n");
                    return;
                }
                close_now();
                return;
            case Phase::handling:
                return;
            case Phase::writing:
            case Phase::idle:
            case Phase::closing:
                close_now();
                return;
        }
    }

    void read_head() {
        phase_ = Phase::head;
        parser_.emplace();
        parser_->header_limit(static_cast<std::uint32_t>(
            std::min<std::size_t>(limits().max_header_bytes, UINT32_MAX)));
        parser_->body_limit(limits().max_body_bytes);
        http::async_read_header(
            stream_, buffer_, *parser_, [self = self()](error_code ec, std::size_t) {
                if (!self->closed_) {
                    self->on_head(ec);
                }
            });
    }

    void on_head(error_code ec) {
        if (ec) {
            if (timed_out_) {
                refuse(408, "Request Timeout: the request head took too long");
            } else if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
                ++core_.too_large;
                refuse(431, "Request Header Fields Too Large");
            } else if (ec == http::error::body_limit) {
                ++core_.too_large;
                refuse(413, "Payload Too Large: the body is over the limit");
            } else if (ec == http::error::end_of_stream || ec == net::error::eof ||
                       ec == net::error::operation_aborted || ec == net::error::connection_reset ||
                       ec.category() == net::error::get_ssl_category()) {
                close_now();
            } else {
                ++core_.bad_requests;
                refuse(400, "Bad Request: malformed HTTP");
            }
            return;
        }
        core_.make_busy(this);
        const auto& message = parser_->get();
        HttpRequest head;
        head.method = text(message.method_string());
        head.target = text(message.target());
        std::size_t count = 0;
        for (const auto& field : message) {
            head.headers.emplace_back(text(field.name_string()), text(field.value()));
            ++count;
        }
        if (count > limits().max_header_count) {
            ++core_.too_large;
            refuse(431, "Request Header Fields Too Large: too many fields");
            return;
        }
        if (parser_->chunked() && message.has_content_length()) {
            ++core_.bad_requests;  // a classic of request smuggling
            refuse(400, "Bad Request: both Content-Length and chunked Transfer-Encoding");
            return;
        }
        head.peer_address = address_;
        const auto length = parser_->content_length();
        if (length && *length > limits().max_body_bytes) {
            ++core_.too_large;
            refuse(413, "Payload Too Large: the body is over the limit");
            return;
        }
        if (core_.options.check_head) {
            if (auto answer = core_.options.check_head(head)) {
                // The body, if any, is never read: the connection ends with the answer.
                answer->close = answer->close || !parser_->is_done();
                phase_ = Phase::handling;
                keep_alive_ = message.keep_alive();
                deliver(std::move(*answer));
                return;
            }
        }
        if (length && !charge(*length)) {
            refuse(503, "Service Unavailable: too many large requests at once");
            return;
        }
        head_ = std::move(head);
        phase_ = Phase::body;
        arm(limits().body_timeout);
        if (iequals(text(message[http::field::expect]), "100-continue") && !parser_->is_done()) {
            auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                           message.version());
            http::async_write(stream_, *cont, [self = self(), cont](error_code e, std::size_t) {
                if (self->closed_) {
                    return;
                }
                if (e) {
                    self->close_now();
                    return;
                }
                self->read_body();
            });
            return;
        }
        read_body();
    }

    void read_body() {
        if (parser_->is_done()) {
            dispatch();
            return;
        }
        http::async_read_some(
            stream_, buffer_, *parser_, [self = self()](error_code ec, std::size_t) {
                if (self->closed_) {
                    return;
                }
                if (ec) {
                    if (self->timed_out_) {
                        self->refuse(408, "Request Timeout: the request body took too long");
                    } else if (ec == http::error::body_limit) {
                        ++self->core_.too_large;
                        self->refuse(413, "Payload Too Large: the body is over the limit");
                    } else if (ec == http::error::end_of_stream || ec == net::error::eof ||
                               ec == net::error::operation_aborted ||
                               ec == net::error::connection_reset) {
                        self->close_now();
                    } else {
                        ++self->core_.bad_requests;
                        self->refuse(400, "Bad Request: malformed HTTP body");
                    }
                    return;
                }
                if (!self->parser_->content_length() &&
                    !self->charge(self->parser_->get().body().size())) {
                    self->refuse(503, "Service Unavailable: too many large requests at once");
                    return;
                }
                self->read_body();
            });
    }

    void dispatch() {
        disarm();
        phase_ = Phase::handling;
        auto message = parser_->release();
        parser_.reset();
        keep_alive_ = message.keep_alive();
        head_.body = std::move(message.body());
        core_.note_freed(head_.body.size());
        // No operation of the connection's own is pending while the handler works: it holds
        // itself until the answer comes (or it is closed).
        pinned_ = shared_from_this();
        auto state = std::make_shared<Responder::State>(core_.weak_from_this(), weak_from_this());
        core_.options.handle(std::move(head_), Responder(std::move(state)));
        head_ = {};
    }

    /// Charges the body bytes held beyond the free ones to the shared budget; false when the
    /// budget cannot hold them.
    bool charge(std::size_t body_bytes) {
        const std::size_t need = body_bytes > kFreeBodyBytes ? body_bytes - kFreeBodyBytes : 0;
        if (need <= charged_) {
            return true;
        }
        const std::size_t more = need - charged_;
        if (core_.body_bytes_held + more > limits().max_body_bytes_in_flight) {
            return false;
        }
        core_.body_bytes_held += more;
        charged_ = need;
        return true;
    }
    void release_budget() {
        core_.body_bytes_held -= std::min(charged_, core_.body_bytes_held);
        charged_ = 0;
    }

    /// Answers with one of the server's own errors and closes the connection.
    void refuse(int status, const std::string& message) {
        disarm();
        release_budget();
        if (parser_) {
            core_.note_freed(parser_->get().body().capacity() + buffer_.capacity());
        }
        parser_.reset();
        if (status == 503) {
            ++core_.shed_count;
        }
        HttpResponse r = core_.options.error_response(status, message);
        if (status == 503) {
            r.set_header("Retry-After", "1");
        }
        phase_ = Phase::handling;
        keep_alive_ = false;
        r.close = true;
        deliver(std::move(r));
    }

    void write_response(HttpResponse r, bool keep) {
        phase_ = Phase::writing;
        response_ = std::make_shared<http::response<http::string_body>>();
        response_->version(11);
        response_->result(static_cast<unsigned>(r.status));
        if (!r.content_type.empty()) {
            response_->set(http::field::content_type, r.content_type);
        }
        for (auto& [name, value] : r.headers) {
            response_->insert(name, value);
        }
        response_->body() = std::move(r.body);
        response_->keep_alive(keep);
        response_->prepare_payload();
        arm(limits().write_timeout);
        http::async_write(stream_, *response_, [self = self(), keep](error_code ec, std::size_t) {
            if (self->closed_) {
                return;
            }
            self->response_.reset();
            if (ec) {
                self->close_now();
            } else if (keep) {
                self->go_idle();
            } else {
                self->finish_connection();
            }
        });
    }

    void start_stream(HttpResponse r) {
        phase_ = Phase::streaming;
        stream_body_ = std::move(r.stream);
        stream_head_ = std::make_shared<http::response<http::empty_body>>();
        stream_head_->version(11);
        stream_head_->result(static_cast<unsigned>(r.status));
        stream_head_->set(http::field::content_type,
                          r.content_type.empty() ? "text/event-stream" : r.content_type);
        for (auto& [name, value] : r.headers) {
            stream_head_->insert(name, value);
        }
        stream_head_->keep_alive(false);
        stream_head_->chunked(true);
        stream_serializer_ =
            std::make_shared<http::response_serializer<http::empty_body>>(*stream_head_);
        writing_ = true;
        arm(limits().write_timeout);
        http::async_write_header(
            stream_, *stream_serializer_, [self = self()](error_code ec, std::size_t) {
                self->writing_ = false;
                if (self->closed_) {
                    return;
                }
                if (ec) {
                    self->close_now();
                    return;
                }
                std::weak_ptr<ConnectionBase> weak = self;
                std::weak_ptr<HttpServer::Core> core = self->core_.weak_from_this();
                auto wake = [weak, core] {
                    if (auto c = core.lock()) {
                        net::post(c->ioc, [weak] {
                            if (auto live = weak.lock()) {
                                live->pump();
                            }
                        });
                    }
                };
                if (!EventStreamPump::attach(
                        *self->stream_body_, std::move(wake), self->limits().max_stream_buffer)) {
                    self->close_now();
                    return;
                }
                self->pump();
            });
    }

    void write_chunk(std::string data) {
        chunk_ = std::move(data);
        writing_ = true;
        arm(limits().write_timeout);
        net::async_write(stream_,
                         http::make_chunk(net::buffer(chunk_)),
                         [self = self()](error_code ec, std::size_t) {
                             self->writing_ = false;
                             if (self->closed_) {
                                 return;
                             }
                             if (ec) {
                                 self->close_now();
                                 return;
                             }
                             self->chunk_.clear();
                             self->pump();
                         });
    }

    void go_idle() {
        phase_ = Phase::idle;
        if (buffer_.capacity() > (64u << 10)) {
            core_.note_freed(buffer_.capacity());
            buffer_.shrink_to_fit();
        }
        if (buffer_.size() > 0) {  // the next request is already here
            arm(limits().head_timeout);
            read_head();
            return;
        }
        core_.make_evictable(this);
        arm(limits().keep_alive);
        lowest().async_wait(tcp::socket::wait_read, [self = self()](error_code ec) {
            if (self->closed_) {
                return;
            }
            if (ec) {
                self->close_now();
                return;
            }
            self->arm(self->limits().head_timeout);
            self->read_head();
        });
    }

    /// The last answer is written: close, letting the client read it first.
    void finish_connection() {
        phase_ = Phase::closing;
        if constexpr (kTls) {
            close_now();
        } else {
            closed_ = true;
            disarm();
            release_budget();
            core_.untrack(this);
            linger_close(std::make_shared<tcp::socket>(std::move(stream_)), core_.ioc);
        }
    }

    Stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    net::steady_timer timer_;
    std::uint64_t timer_generation_ = 0;
    Phase phase_ = Phase::head;
    bool timed_out_ = false;
    bool closed_ = false;
    bool keep_alive_ = false;
    bool writing_ = false;
    std::size_t served_ = 0;
    std::size_t charged_ = 0;
    HttpRequest head_;
    std::shared_ptr<ConnectionBase> pinned_;  ///< this connection, while a handler has it
    std::shared_ptr<http::response<http::string_body>> response_;
    std::shared_ptr<EventStream> stream_body_;
    std::shared_ptr<http::response<http::empty_body>> stream_head_;
    std::shared_ptr<http::response_serializer<http::empty_body>> stream_serializer_;
    std::string chunk_;
};

// ---------------------------------------------------------------------------------------------
// Core

void HttpServer::Core::track(ConnectionBase* c) {
    all.insert(c);
    ++per_address[c->address()];
    c->tracked = true;
    open = all.size();
    make_evictable(c);
}

void HttpServer::Core::untrack(ConnectionBase* c) {
    if (!c->tracked) {
        return;
    }
    c->tracked = false;
    make_busy(c);
    all.erase(c);
    if (auto it = per_address.find(c->address()); it != per_address.end() && --it->second == 0) {
        per_address.erase(it);
    }
    open = all.size();
}

void HttpServer::Core::make_evictable(ConnectionBase* c) {
    if (!c->tracked || c->in_evictable) {
        return;
    }
    c->evictable_at = evictable.insert(evictable.end(), c);
    c->in_evictable = true;
}

void HttpServer::Core::make_busy(ConnectionBase* c) {
    if (c->in_evictable) {
        evictable.erase(c->evictable_at);
        c->in_evictable = false;
    }
}

bool HttpServer::Core::evict_one(const std::string* address) {
    for (ConnectionBase* c : evictable) {
        if (address == nullptr || c->address() == *address) {
            ++evicted;
            c->close_now();  // untracks it
            return true;
        }
    }
    return false;
}

void HttpServer::Core::shed(tcp::socket socket) {
    ++shed_count;
    error_code ignored;
    if (tls || shedding >= kMaxShedding) {
        socket.close(ignored);
        return;
    }
    ++shedding;
    auto s = std::make_shared<tcp::socket>(std::move(socket));
    auto timer = std::make_shared<net::steady_timer>(ioc, kLinger);
    timer->async_wait([s](error_code ec) {
        if (!ec) {
            error_code e;
            s->close(e);
        }
    });
    net::async_write(
        *s, net::buffer(shed_text), [s, timer, self = this](error_code ec, std::size_t) {
            timer->cancel();
            --self->shedding;
            if (ec) {
                error_code e;
                s->close(e);
                return;
            }
            linger_close(s, self->ioc);
        });
}

void HttpServer::Core::on_accept(tcp::socket socket) {
    error_code ec;
    if (stopping) {
        socket.close(ec);
        return;
    }
    ++accepted;
    auto endpoint = socket.remote_endpoint(ec);
    if (ec) {
        socket.close(ec);
        return;
    }
    std::string address = endpoint.address().to_string();
    socket.set_option(tcp::no_delay(true), ec);
    // Over a cap, the oldest idle connection (of that address, for the address cap) gives way;
    // when none is idle, the newcomer is refused at once.
    if (all.size() >= options.limits.max_connections && !evict_one(nullptr)) {
        shed(std::move(socket));
        return;
    }
    if (auto it = per_address.find(address);
        it != per_address.end() && it->second >= options.limits.max_connections_per_address &&
        !evict_one(&address)) {
        shed(std::move(socket));
        return;
    }
    std::shared_ptr<ConnectionBase> c;
    if (tls) {
        c = std::make_shared<Connection<net::ssl::stream<tcp::socket>>>(
            *this, std::move(address), net::ssl::stream<tcp::socket>(std::move(socket), *tls));
    } else {
        c = std::make_shared<Connection<tcp::socket>>(*this, std::move(address), std::move(socket));
    }
    track(c.get());
    c->start();
}

void HttpServer::Core::start_accepting() {
    // Handlers of the core's own operations hold it raw: the core owns the io_context, so it
    // outlives every handler, and a shared pointer here would keep it alive forever.
    acceptor.async_accept([self = this](error_code ec, tcp::socket socket) {
        if (!self->acceptor.is_open() || self->stopping) {
            return;
        }
        if (ec) {  // out of descriptors, say: try again shortly rather than spin
            self->retry_timer.expires_after(std::chrono::milliseconds(50));
            self->retry_timer.async_wait([self](error_code e) {
                if (!e) {
                    self->start_accepting();
                }
            });
            return;
        }
        self->on_accept(std::move(socket));
        self->start_accepting();
    });
}

void HttpServer::Core::note_freed(std::size_t bytes) {
    freed_since_trim += bytes;
    if (freed_since_trim < kTrimAfterBytes) {
        return;
    }
    freed_since_trim = 0;
    // Later, once the flood's buffers are gone: give the memory back to the system.
    trim_timer.expires_after(std::chrono::milliseconds(500));
    trim_timer.async_wait([](error_code ec) {
        if (!ec) {
            malloc_trim(0);
        }
    });
}

void HttpServer::Core::stop_now() {
    if (stopping) {
        return;
    }
    stopping = true;
    error_code ignored;
    acceptor.close(ignored);
    retry_timer.cancel();
    trim_timer.cancel();
    std::vector<ConnectionBase*> open_now(all.begin(), all.end());
    bool waiting = false;
    for (ConnectionBase* c : open_now) {
        if (c->flushing()) {
            waiting = true;
        } else {
            c->close_now();
        }
    }
    auto finish = [self = this] {
        std::vector<ConnectionBase*> rest(self->all.begin(), self->all.end());
        for (ConnectionBase* c : rest) {
            c->close_now();
        }
        self->ioc.stop();
    };
    if (!waiting) {
        finish();
        return;
    }
    stop_timer.expires_after(kStopGrace);
    stop_timer.async_wait([finish](error_code) { finish(); });
}

// ---------------------------------------------------------------------------------------------
// HttpServer

HttpServer::HttpServer(HttpServerOptions options)
    : core_(std::make_shared<Core>(std::move(options))) {}

HttpServer::~HttpServer() {
    stop();
}

Status HttpServer::bind() {
    Core& c = *core_;
    if (c.options.tls) {
        auto cert = detail::read_text_file(c.options.tls->certificate_chain, kMaxTlsFileBytes);
        if (!cert) {
            return Status{Errc::invalid_argument, "--tls-cert: " + cert.status().message()};
        }
        auto key = detail::read_text_file(c.options.tls->private_key, kMaxTlsFileBytes);
        if (!key) {
            return Status{Errc::invalid_argument, "--tls-key: " + key.status().message()};
        }
        try {
            net::ssl::context ctx(net::ssl::context::tls_server);
            ctx.set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                            net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                            net::ssl::context::no_tlsv1_1 | net::ssl::context::single_dh_use);
            // TLS 1.2 with forward secrecy and AEAD only; TLS 1.3's suites are all modern.
            SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
            SSL_CTX_set_cipher_list(ctx.native_handle(),
                                    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
                                    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                                    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305");
            ctx.use_certificate_chain(net::buffer(*cert));
            ctx.use_private_key(net::buffer(*key), net::ssl::context::pem);
            if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
                return Status{Errc::invalid_argument,
                              "--tls-key does not match the certificate of --tls-cert"};
            }
            c.tls.emplace(std::move(ctx));
        } catch (const boost::system::system_error& e) {
            return Status{Errc::invalid_argument,
                          std::string("cannot use the TLS certificate or key: ") + e.what()};
        }
    }
    {
        HttpResponse r = c.options.error_response(503, "Service Unavailable: too many connections");
        std::string head =
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"
            "Connection: close\r\nContent-Type: " +
            (r.content_type.empty() ? std::string("text/plain") : r.content_type) +
            "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\n\r\n";
        c.shed_text = head + r.body;
    }
    error_code ec;
    const auto address =
        net::ip::make_address(c.options.host == "localhost" ? "127.0.0.1" : c.options.host, ec);
    if (ec) {
        return Status{Errc::invalid_argument,
                      "cannot listen on " + c.options.host + ": not an IP address"};
    }
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(c.options.port));
    c.acceptor.open(endpoint.protocol(), ec);
    if (!ec) {
        c.acceptor.set_option(net::socket_base::reuse_address(true), ec);
        c.acceptor.bind(endpoint, ec);
    }
    if (!ec) {
        c.acceptor.listen(net::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        error_code ignored;
        c.acceptor.close(ignored);
        return Status{Errc::io_error,
                      "cannot bind " + c.options.host + ":" + std::to_string(c.options.port) +
                          ": " + ec.message()};
    }
    c.port = c.acceptor.local_endpoint(ec).port();
    return {};
}

int HttpServer::port() const {
    return core_->port;
}

void HttpServer::serve() {
    auto core = core_;  // alive until serving ends, whoever drops the server meanwhile
    if (core->stop_requested) {
        return;
    }
    core->start_accepting();
    core->ioc.run();
}

void HttpServer::stop() {
    if (core_->stop_requested.exchange(true)) {
        return;
    }
    net::post(core_->ioc, [weak = std::weak_ptr(core_)] {
        if (auto core = weak.lock()) {
            core->stop_now();
        }
    });
}

HttpServerCounts HttpServer::counts() const {
    const Core& c = *core_;
    return {c.accepted, c.shed_count, c.evicted, c.timeouts, c.too_large, c.bad_requests, c.open};
}

}  // namespace scout::gateway
