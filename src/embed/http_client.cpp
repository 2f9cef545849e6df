// http_client.cpp: see http_client.hpp. Non-blocking sockets and poll() enforce the deadlines;
// responses are framed by Content-Length, chunked transfer coding, or the closing of the
// connection (we always send "Connection: close").
#include "embed/http_client.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace scout::detail {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxResponseBytes = 64U << 20U;

class Socket {
public:
    explicit Socket(int fd) : fd_(fd) {}
    ~Socket() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    [[nodiscard]] int fd() const { return fd_; }

private:
    int fd_;
};

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

/// Waits for `events` on fd; false on timeout or poll failure.
bool wait_for(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, remaining_ms(deadline));
        if (r > 0) {
            return true;
        }
        if (r == 0 || errno != EINTR) {
            return false;
        }
    }
}

Result<std::unique_ptr<Socket>> connect_to(const HttpUrl& url, Clock::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(url.port);
    if (int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
        return Status{Errc::unavailable, "connect: cannot resolve " + url.host + ": " + ::gai_strerror(rc)};
    }
    std::string last_error = "no address";
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        auto sock = std::make_unique<Socket>(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                                                      a->ai_protocol));
        if (sock->fd() < 0) {
            last_error = std::strerror(errno);
            continue;
        }
        int rc = ::connect(sock->fd(), a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            if (!wait_for(sock->fd(), POLLOUT, deadline)) {
                last_error = "timed out";
                continue;
            }
            int err = 0;
            socklen_t len = sizeof(err);
            ::getsockopt(sock->fd(), SOL_SOCKET, SO_ERROR, &err, &len);
            rc = err == 0 ? 0 : -1;
            errno = err;
        }
        if (rc == 0) {
            ::freeaddrinfo(found);
            return sock;
        }
        last_error = std::strerror(errno);
    }
    ::freeaddrinfo(found);
    return Status{Errc::unavailable, "connect to " + url.host + ":" + port + " failed: " + last_error};
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

struct Head {
    int status = 0;
    std::optional<std::size_t> content_length;
    bool chunked = false;
    double retry_after_s = -1;
    std::size_t body_start = 0;
};

/// Parses the status line and headers once "\r\n\r\n" has arrived.
std::optional<Head> parse_head(const std::string& raw) {
    const std::size_t end = raw.find("\r\n\r\n");
    if (end == std::string::npos) {
        return std::nullopt;
    }
    Head h;
    h.body_start = end + 4;
    const std::string_view head(raw.data(), end);
    if (head.size() < 12 || head.substr(0, 7) != "HTTP/1." ||
        std::from_chars(head.data() + 9, head.data() + 12, h.status).ec != std::errc()) {
        h.status = -1;
        return h;
    }
    for (std::size_t pos = head.find("\r\n"); pos != std::string_view::npos;) {
        const std::size_t next = head.find("\r\n", pos + 2);
        const std::string_view line = head.substr(pos + 2, (next == std::string_view::npos ? head.size() : next) - pos - 2);
        pos = next;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        const std::string name = lower(line.substr(0, colon));
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
            value.remove_prefix(1);
        }
        if (name == "content-length") {
            std::size_t n = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), n).ec == std::errc()) {
                h.content_length = n;
            }
        } else if (name == "transfer-encoding") {
            h.chunked = lower(value).find("chunked") != std::string::npos;
        } else if (name == "retry-after") {
            double s = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), s).ec == std::errc() && s >= 0) {
                h.retry_after_s = s;
            }
        }
    }
    return h;
}

/// Decodes a chunked body; nullopt while incomplete, "" + ok=false when malformed.
std::optional<std::string> dechunk(std::string_view data, bool& malformed) {
    std::string out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t eol = data.find("\r\n", pos);
        if (eol == std::string_view::npos) {
            return std::nullopt;
        }
        std::size_t size = 0;
        const auto [p, ec] = std::from_chars(data.data() + pos, data.data() + eol, size, 16);
        if (ec != std::errc() || p == data.data() + pos || size > kMaxResponseBytes) {
            malformed = true;
            return std::nullopt;
        }
        if (size == 0) {
            return out;  // trailers, if any, are ignored
        }
        if (data.size() < eol + 2 + size + 2) {
            return std::nullopt;
        }
        out.append(data.substr(eol + 2, size));
        pos = eol + 2 + size + 2;
    }
}

}  // namespace

Result<HttpUrl> parse_http_url(const std::string& url) {
    constexpr std::string_view scheme = "http://";
    if (url.rfind(scheme, 0) != 0) {
        return Status{Errc::invalid_argument, "embedder URL must start with http:// (got '" + url + "')"};
    }
    HttpUrl out;
    std::string_view rest = std::string_view(url).substr(scheme.size());
    const std::size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    out.path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
    while (!out.path.empty() && out.path.back() == '/') {
        out.path.pop_back();
    }
    if (authority.find('@') != std::string_view::npos || authority.find('[') != std::string_view::npos) {
        return Status{Errc::invalid_argument, "embedder URL: user info and IPv6 literals are not supported"};
    }
    if (const std::size_t colon = authority.find(':'); colon != std::string_view::npos) {
        unsigned port = 0;
        const std::string_view digits = authority.substr(colon + 1);
        const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
        if (ec != std::errc() || p != digits.data() + digits.size() || port == 0 || port > 65535) {
            return Status{Errc::invalid_argument, "embedder URL has a bad port: " + url};
        }
        out.port = static_cast<std::uint16_t>(port);
        authority = authority.substr(0, colon);
    }
    if (authority.empty()) {
        return Status{Errc::invalid_argument, "embedder URL has no host: " + url};
    }
    out.host = std::string(authority);
    return out;
}

Result<HttpResponse> http_post(const HttpUrl& url, const std::string& path_suffix, const std::string& body,
                               const std::string& bearer_token, std::chrono::milliseconds connect_timeout,
                               std::chrono::milliseconds request_timeout) {
    const auto start = Clock::now();
    const auto deadline = start + request_timeout;
    auto sock = connect_to(url, std::min(deadline, start + connect_timeout));
    if (!sock) {
        return sock.status();
    }
    const int fd = sock.value()->fd();
    std::string request = "POST " + (url.path + path_suffix) + " HTTP/1.1\r\nHost: " + url.host + ":" +
                          std::to_string(url.port) +
                          "\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
                          "User-Agent: scout\r\nConnection: close\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n";
    if (!bearer_token.empty()) {
        request += "Authorization: Bearer " + bearer_token + "\r\n";
    }
    request += "\r\n";
    request += body;
    const auto timed_out = [&] {
        return Status{Errc::unavailable, "request to " + url.host + " timed out after " +
                                             std::to_string(request_timeout.count()) + " ms"};
    };
    for (std::size_t sent = 0; sent < request.size();) {
        if (!wait_for(fd, POLLOUT, deadline)) {
            return timed_out();
        }
        const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return Status{Errc::unavailable, std::string("connection lost while sending: ") + std::strerror(errno)};
        }
        sent += n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    std::string raw;
    std::optional<Head> head;
    char buf[16384];
    for (;;) {
        if (head && head->status > 0) {
            const std::string_view data = std::string_view(raw).substr(head->body_start);
            if (head->chunked) {
                bool malformed = false;
                if (auto decoded = dechunk(data, malformed)) {
                    return HttpResponse{head->status, std::move(*decoded), head->retry_after_s};
                }
                if (malformed) {
                    return Status{Errc::unavailable, "malformed chunked response"};
                }
            } else if (head->content_length && data.size() >= *head->content_length) {
                return HttpResponse{head->status, std::string(data.substr(0, *head->content_length)),
                                    head->retry_after_s};
            }
        }
        if (!wait_for(fd, POLLIN, deadline)) {
            return timed_out();
        }
        const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            continue;
        }
        if (n < 0) {
            return Status{Errc::unavailable, std::string("connection lost while receiving: ") + std::strerror(errno)};
        }
        if (n == 0) {  // closed by the server
            if (!head || head->status <= 0 || head->chunked || head->content_length) {
                return Status{Errc::unavailable, "connection closed before a complete HTTP response"};
            }
            return HttpResponse{head->status, raw.substr(head->body_start), head->retry_after_s};
        }
        raw.append(buf, static_cast<std::size_t>(n));
        if (raw.size() > kMaxResponseBytes) {
            return Status{Errc::unavailable, "HTTP response larger than 64 MiB"};
        }
        if (!head) {
            head = parse_head(raw);
            if (head && head->status <= 0) {
                return Status{Errc::unavailable, "malformed HTTP status line"};
            }
        }
    }
}

}  // namespace scout::detail
