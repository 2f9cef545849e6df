// http_connection.cpp: one accepted connection of the listener, plain TCP or TLS: it reads a
// request's head and body under the limits, hands it to the handler, and writes the answer, a
// whole response or an event stream, then idles, lingers or closes.
#include <algorithm>
#include <array>
#include <type_traits>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http_server_core.hpp"

namespace scout::gateway {

namespace beast = boost::beast;
namespace http = beast::http;
using server_detail::iequals;
using server_detail::linger_close;

namespace {

/// The first bytes of every body are not charged to the shared budget: the connection cap
/// already bounds them, and the small requests of legitimate callers never wait on a flood.
constexpr std::size_t kFreeBodyBytes = 64u << 10;

std::string text(beast::string_view s) {
    return {s.data(), s.size()};
}

}  // namespace

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

std::shared_ptr<ConnectionBase> server_detail::make_connection(HttpServer::Core& core,
                                                               std::string address,
                                                               tcp::socket socket) {
    if (core.tls) {
        return std::make_shared<Connection<net::ssl::stream<tcp::socket>>>(
            core, std::move(address), net::ssl::stream<tcp::socket>(std::move(socket), *core.tls));
    }
    return std::make_shared<Connection<tcp::socket>>(core, std::move(address), std::move(socket));
}

}  // namespace scout::gateway
