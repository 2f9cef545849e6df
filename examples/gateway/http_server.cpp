// http_server.cpp: see http_server.hpp. Every connection lives on one I/O thread; its state
// (phase, deadline, buffers) is touched only there, and other threads reach it by posting. This
// file holds the server's shared state (accepting, connection caps, shedding, stopping) and
// start-up; a connection is http_connection.cpp.
#include "http_server.hpp"

#include <malloc.h>

#include <array>

#include "file_io.hpp"
#include "http_server_core.hpp"

namespace scout::gateway {

namespace {

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

}  // namespace

void server_detail::linger_close(std::shared_ptr<tcp::socket> socket, net::io_context& ioc) {
    std::make_shared<Lingerer>(std::move(socket), ioc)->start();
}

using server_detail::linger_close;

// ---------------------------------------------------------------------------------------------
// Core

HttpServer::Core::Core(HttpServerOptions o) : options(std::move(o)) {
    if (!options.error_response) {
        options.error_response = plain_error;
    }
}

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
    std::shared_ptr<ConnectionBase> c =
        server_detail::make_connection(*this, std::move(address), std::move(socket));
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
