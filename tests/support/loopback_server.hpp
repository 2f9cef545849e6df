// loopback_server.hpp: a tiny HTTP/1.1 server on 127.0.0.1 (ephemeral port) for tests, plain or
// TLS (OpenSSL, with a certificate the test makes: see tls_identity.hpp). A thread per
// connection; connections are kept alive; a handler maps each request to a scripted reply,
// which can also misbehave (hang, flood, close mid-body). Stops in its destructor, promptly even
// in the middle of a delayed or endless reply.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace scout::test {

struct Request {
    std::string head;  ///< request line and headers
    std::string body;
};

struct Reply {
    int status = 200;
    std::string body;
    std::string extra_headers;    ///< e.g. "Retry-After: 1\r\n"
    int delay_ms = 0;             ///< wait before answering (the server stops it promptly)
    bool hang_up = false;         ///< close the connection without answering
    bool chunked = false;         ///< send the body with chunked transfer coding
    bool close_mid_body = false;  ///< announce the whole body, send half of it, close
    bool flood = false;           ///< send an endless body until the client gives up
};

inline Reply make_reply(int status, std::string body, std::string extra_headers = {}) {
    Reply r;
    r.status = status;
    r.body = std::move(body);
    r.extra_headers = std::move(extra_headers);
    return r;
}

/// A certificate and its private key, PEM files, for a TLS server.
struct TlsIdentity {
    std::string cert_file;
    std::string key_file;
};

class LoopbackServer {
public:
    explicit LoopbackServer(std::function<Reply(const Request&)> handler,
                            const TlsIdentity* tls = nullptr)
        : handler_(std::move(handler)) {
        if (tls != nullptr) {
            ctx_ = SSL_CTX_new(TLS_server_method());
            if (ctx_ == nullptr ||
                SSL_CTX_use_certificate_chain_file(ctx_, tls->cert_file.c_str()) != 1 ||
                SSL_CTX_use_PrivateKey_file(ctx_, tls->key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
                tls_error_ = true;
            }
        }
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
        ::listen(listener_, 16);
        socklen_t len = sizeof(addr);
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { run(); });
    }
    ~LoopbackServer() {
        stop_ = true;
        thread_.join();
        std::lock_guard lock(mu_);
        for (std::thread& t : connections_) {
            t.join();
        }
        ::close(listener_);
        SSL_CTX_free(ctx_);
    }
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    [[nodiscard]] std::string url() const {
        return std::string(ctx_ != nullptr ? "https" : "http") +
               "://127.0.0.1:" + std::to_string(port_) + "/v1";
    }
    [[nodiscard]] int port() const { return port_; }
    /// False when the TLS certificate or key could not be loaded.
    [[nodiscard]] bool ready() const { return !tls_error_; }
    [[nodiscard]] int requests() const { return requests_.load(); }
    /// TCP connections accepted (fewer than requests when clients keep connections alive).
    [[nodiscard]] int connections() const { return accepted_.load(); }

private:
    /// One accepted connection: the socket and, for TLS, its session.
    struct Conn {
        int fd = -1;
        SSL* ssl = nullptr;
        ~Conn() {
            if (ssl != nullptr) {
                SSL_free(ssl);
            }
            ::close(fd);
        }
        Conn() = default;
        Conn(const Conn&) = delete;
        Conn& operator=(const Conn&) = delete;
    };

    static bool readable(int fd, int ms) {
        pollfd p{fd, POLLIN, 0};
        return ::poll(&p, 1, ms) > 0;
    }

    void run() {
        while (!stop_) {
            if (!readable(listener_, 20)) {
                continue;
            }
            const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) {
                continue;
            }
            ++accepted_;
            std::lock_guard lock(mu_);
            connections_.emplace_back([this, fd] { serve(fd); });
        }
    }

    /// Bytes in, or 0 on close, -1 on nothing yet (after ~20 ms).
    long receive(Conn& c, char* buf, std::size_t size) {
        if ((c.ssl == nullptr || SSL_pending(c.ssl) == 0) && !readable(c.fd, 20)) {
            return -1;
        }
        if (c.ssl != nullptr) {
            const int n = SSL_read(c.ssl, buf, static_cast<int>(size));
            return n > 0 ? n : 0;
        }
        const ssize_t n = ::recv(c.fd, buf, size, 0);
        return n > 0 ? n : 0;
    }

    bool transmit(Conn& c, const std::string& bytes) {
        if (c.ssl != nullptr) {
            return bytes.empty() ||
                   SSL_write(c.ssl, bytes.data(), static_cast<int>(bytes.size())) > 0;
        }
        return ::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
               static_cast<ssize_t>(bytes.size());
    }

    void serve(int fd) {
        Conn c;
        c.fd = fd;
        // A client that stalls mid-handshake or mid-record cannot hold the server past this.
        timeval limit{2, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
        if (ctx_ != nullptr) {
            c.ssl = SSL_new(ctx_);
            SSL_set_fd(c.ssl, fd);
            if (SSL_accept(c.ssl) != 1) {
                ERR_clear_error();
                return;  // e.g. the client did not trust our certificate
            }
        }
        std::string raw;
        while (!stop_) {
            Request request;
            if (!read_request(c, raw, request)) {
                return;
            }
            ++requests_;
            if (!answer(c, handler_(request))) {
                return;
            }
        }
    }

    /// Reads one request off `raw` (plus what arrives); false on close, stop or idle timeout.
    bool read_request(Conn& c, std::string& raw, Request& out) {
        char buf[8192];
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        std::size_t need = std::string::npos;
        for (;;) {
            const std::size_t end = raw.find("\r\n\r\n");
            if (need == std::string::npos && end != std::string::npos) {
                const std::size_t cl = raw.find("Content-Length: ");
                need = end + 4 +
                       (cl != std::string::npos && cl < end ? std::stoul(raw.substr(cl + 16)) : 0);
            }
            if (need != std::string::npos && raw.size() >= need) {
                out.head = raw.substr(0, end);
                out.body = raw.substr(end + 4, need - end - 4);
                raw.erase(0, need);
                return true;
            }
            if (stop_ || std::chrono::steady_clock::now() >= give_up) {
                return false;
            }
            const long n = receive(c, buf, sizeof(buf));
            if (n == 0) {
                return false;
            }
            if (n > 0) {
                raw.append(buf, static_cast<std::size_t>(n));
            }
        }
    }

    /// Sends the reply; false when the connection is to be closed.
    bool answer(Conn& c, const Reply& reply) {
        for (int waited = 0; waited < reply.delay_ms && !stop_; waited += 10) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (reply.hang_up || stop_) {
            return false;
        }
        std::string out = "HTTP/1.1 " + std::to_string(reply.status) +
                          " X\r\nContent-Type: application/json\r\n" + reply.extra_headers;
        if (reply.flood) {
            out += "Connection: close\r\n\r\n";  // the body ends when the connection does
            const std::string block(64 * 1024, ' ');
            bool sent = transmit(c, out);
            while (sent && !stop_) {
                sent = transmit(c, block);
            }
            return false;
        }
        if (reply.close_mid_body) {
            out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n\r\n" +
                   reply.body.substr(0, reply.body.size() / 2);
            transmit(c, out);
            return false;
        }
        if (reply.chunked) {
            out += "Transfer-Encoding: chunked\r\n\r\n";
            for (std::size_t i = 0; i < reply.body.size(); i += 100) {
                const std::string part = reply.body.substr(i, 100);
                char size[16];
                std::snprintf(size, sizeof(size), "%zx\r\n", part.size());
                out += size + part + "\r\n";
            }
            out += "0\r\n\r\n";
        } else {
            out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n\r\n" + reply.body;
        }
        return transmit(c, out);
    }

    std::function<Reply(const Request&)> handler_;
    SSL_CTX* ctx_ = nullptr;
    bool tls_error_ = false;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> requests_{0};
    std::atomic<int> accepted_{0};
    std::mutex mu_;
    std::vector<std::thread> connections_;  // guarded by mu_
    std::thread thread_;
};

}  // namespace scout::test
