// loopback_server.hpp: a tiny HTTP/1.1 server on 127.0.0.1 (ephemeral port) for tests. One
// connection at a time; a handler maps each request to a scripted reply. Stops in its
// destructor, promptly even in the middle of a delayed reply.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace scout::test {

struct Request {
    std::string head;  ///< request line and headers
    std::string body;
};

struct Reply {
    int status = 200;
    std::string body;
    std::string extra_headers;      ///< e.g. "Retry-After: 1\r\n"
    int delay_ms = 0;               ///< wait before answering
    bool hang_up = false;           ///< close the connection without answering
    bool chunked = false;           ///< send the body with chunked transfer coding
};

inline Reply make_reply(int status, std::string body, std::string extra_headers = {}) {
    Reply r;
    r.status = status;
    r.body = std::move(body);
    r.extra_headers = std::move(extra_headers);
    return r;
}

class LoopbackServer {
public:
    explicit LoopbackServer(std::function<Reply(const Request&)> handler) : handler_(std::move(handler)) {
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
        ::close(listener_);
    }
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
    [[nodiscard]] int requests() const { return requests_.load(); }

private:
    bool readable(int fd, int ms) {
        pollfd p{fd, POLLIN, 0};
        return ::poll(&p, 1, ms) > 0;
    }

    void run() {
        while (!stop_) {
            if (!readable(listener_, 20)) {
                continue;
            }
            const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                serve(fd);
                ::close(fd);
            }
        }
    }

    void serve(int fd) {
        std::string raw;
        char buf[8192];
        std::size_t need = std::string::npos;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!stop_ && std::chrono::steady_clock::now() < give_up) {
            if (need != std::string::npos && raw.size() >= need) {
                break;
            }
            if (!readable(fd, 20)) {
                continue;
            }
            const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
            if (n <= 0) {
                return;
            }
            raw.append(buf, static_cast<std::size_t>(n));
            const std::size_t end = raw.find("\r\n\r\n");
            if (need == std::string::npos && end != std::string::npos) {
                const std::size_t cl = raw.find("Content-Length: ");
                need = end + 4 + (cl != std::string::npos && cl < end ? std::stoul(raw.substr(cl + 16)) : 0);
            }
        }
        if (need == std::string::npos || raw.size() < need) {
            return;
        }
        ++requests_;
        const std::size_t end = raw.find("\r\n\r\n");
        const Reply reply = handler_(Request{raw.substr(0, end), raw.substr(end + 4, need - end - 4)});
        for (int waited = 0; waited < reply.delay_ms && !stop_; waited += 10) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (reply.hang_up || stop_) {
            return;
        }
        std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " X\r\nContent-Type: application/json\r\n" +
                          reply.extra_headers;
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
        ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    }

    std::function<Reply(const Request&)> handler_;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> requests_{0};
    std::thread thread_;
};

}  // namespace scout::test
