// gateway_http_limits_test.cpp: the gateway's Streamable HTTP transport on 127.0.0.1 against
// misbehaving clients: requests over the size limits, clients that stall or flood, Host checks
// without an auth file, TLS and its handshake bound, event streams to slow or deaf clients, and
// the health endpoints.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <openssl/ssl.h>

#include "scout/catalog.hpp"

#include "auth.hpp"
#include "gateway.hpp"
#include "http_server.hpp"
#include "http_transport.hpp"
#include "remote_session.hpp"
#include "support/served_gateway.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_identity.hpp"

using namespace scout::gateway;
using namespace scout::gateway::http_test;

namespace {

int connect_raw(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    return fd;
}

/// True when the server closes the connection (recv gives 0 or an error) within `ms`.
bool closed_by_server(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    char buf[4096];
    while (::poll(&p, 1, ms) > 0) {
        if (::recv(fd, buf, sizeof buf, 0) <= 0) {
            return true;
        }
    }
    return false;
}

}  // namespace

namespace {

void send_all(int fd, const std::string& data) {
    REQUIRE(::send(fd, data.data(), data.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(data.size()));
}

/// What the server sends on `fd` within `ms` (until it closes or goes quiet).
std::string read_reply(int fd, int ms) {
    std::string got;
    pollfd p{fd, POLLIN, 0};
    char buf[4096];
    while (::poll(&p, 1, ms) > 0) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            break;
        }
        got.append(buf, static_cast<std::size_t>(n));
        if (got.find("\r\n\r\n") != std::string::npos) {
            ms = 200;  // the head is here: take what follows, briefly
        }
    }
    return got;
}

/// Sends `piece` until the server answers (or `max_bytes` went out); returns the bytes sent
/// before the answer was seen, and the answer.
std::pair<std::size_t, std::string> send_until_answered(int fd,
                                                        const std::string& piece,
                                                        std::size_t max_bytes) {
    std::size_t sent = 0;
    while (sent < max_bytes) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) {
            break;
        }
        const ssize_t n = ::send(fd, piece.data(), piece.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN) {
                (void)::poll(&p, 1, 10);
                continue;
            }
            break;  // reset: the answer may still be readable
        }
        sent += static_cast<std::size_t>(n);
    }
    return {sent, read_reply(fd, 3000)};
}

int status_of(const std::string& reply) {
    if (reply.rfind("HTTP/1.1 ", 0) != 0 || reply.size() < 12) {
        return 0;
    }
    return std::stoi(reply.substr(9, 3));
}

}  // namespace

TEST_CASE("requests over the limits are refused from what has arrived", "[gateway][http]") {
    HttpLimits limits;
    limits.server.max_body_bytes = 64 * 1024;
    limits.server.max_header_bytes = 4096;
    Served s(limits);
    const int port = s.transport->port();

    SECTION("a chunked body is cut off once it crosses the limit") {
        const int fd = connect_raw(port);
        send_all(fd,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     std::string(kAdminToken) +
                     "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        const std::string chunk = "1000\r\n" + std::string(0x1000, 'x') + "\r\n";
        auto [sent, reply] = send_until_answered(fd, chunk, 64u << 20);
        CHECK(status_of(reply) == 413);
        CHECK(sent < (16u << 20));  // what socket buffers hold, not the 64 MiB offered
        ::close(fd);
    }
    SECTION("a declared length over the limit is refused before the body is read") {
        const int fd = connect_raw(port);
        send_all(fd,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 "Content-Length: 104857600\r\n\r\n");
        CHECK(status_of(read_reply(fd, 3000)) == 413);
        ::close(fd);
    }
    SECTION("a head over the limit gets 431") {
        const int fd = connect_raw(port);
        send_all(fd, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        auto [sent, reply] =
            send_until_answered(fd, "X-Pad: " + std::string(1000, 'y') + "\r\n", 64u << 20);
        CHECK(status_of(reply) == 431);
        CHECK(sent < (4u << 20));
        ::close(fd);
    }
    SECTION("too many header fields get 431") {
        const int fd = connect_raw(port);
        std::string head = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (int i = 0; i < 150; ++i) {
            head += "X:" + std::to_string(i % 10) + "\r\n";
        }
        send_all(fd, head + "\r\n");
        CHECK(status_of(read_reply(fd, 3000)) == 431);
        ::close(fd);
    }
    SECTION("an unauthenticated body is never read") {
        const int fd = connect_raw(port);
        send_all(fd,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 "Content-Length: 60000\r\n\r\n");
        CHECK(status_of(read_reply(fd, 3000)) == 401);
        ::close(fd);
    }
    SECTION("smuggling shapes and garbage get 400") {
        const int fd = connect_raw(port);
        send_all(fd,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        CHECK(status_of(read_reply(fd, 3000)) == 400);
        ::close(fd);
        const int junk = connect_raw(port);
        send_all(junk, std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15));
        const std::string reply = read_reply(junk, 3000);
        CHECK((reply.empty() || status_of(reply) == 400));
        ::close(junk);
    }
}

TEST_CASE("clients that stall or flood cannot hold the HTTP transport", "[gateway][http]") {
    HttpLimits limits;
    limits.server.head_timeout = std::chrono::milliseconds(1000);
    limits.server.body_timeout = std::chrono::milliseconds(1500);
    limits.server.max_connections = 3;
    Served s(limits);
    const int port = s.transport->port();
    auto c = s.client();

    SECTION("a stalled head or body gets 408 at its deadline, and others are served meanwhile") {
        const int head = connect_raw(port);
        send_all(head, "POST /mcp HTTP/1.1\r\nHost: x\r\n");
        const int body = connect_raw(port);
        send_all(body,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     std::string(kAdminToken) +
                     "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
        auto r = c.Get("/metrics", with_token(kAdminToken));  // the third connection
        REQUIRE(r);
        CHECK(r->status == 200);
        CHECK(status_of(read_reply(head, 5000)) == 408);
        CHECK(status_of(read_reply(body, 5000)) == 408);
        auto m = c.Get("/metrics", with_token(kAdminToken));
        REQUIRE(m);
        CHECK(m->body.find("scout_http_refused_total{reason=\"timeout\"} 2\n") !=
              std::string::npos);
        ::close(head);
        ::close(body);
    }
    SECTION("at the cap the oldest idle connection gives way; with none idle, 503 at once") {
        const int idle1 = connect_raw(port);
        const int idle2 = connect_raw(port);
        const int idle3 = connect_raw(port);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        auto r = c.Get("/metrics", with_token(kAdminToken));
        REQUIRE(r);
        CHECK(r->status == 200);
        CHECK(closed_by_server(idle1, 2000));  // the oldest was closed to make room
        ::close(idle1);
        ::close(idle2);
        ::close(idle3);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        // Three connections in the middle of their bodies are not idle: a fourth is refused.
        std::vector<int> busy;
        for (int i = 0; i < 3; ++i) {
            busy.push_back(connect_raw(port));
            send_all(busy.back(),
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                         std::string(kAdminToken) +
                         "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const int late = connect_raw(port);
        const std::string reply = read_reply(late, 1000);
        CHECK(status_of(reply) == 503);
        CHECK(reply.find("Retry-After: 1") != std::string::npos);
        ::close(late);
        for (int fd : busy) {
            ::close(fd);
        }
    }
}

TEST_CASE("without an auth file only loopback Host names are answered", "[gateway][http]") {
    CHECK(host_header_is_loopback(""));
    CHECK(host_header_is_loopback("localhost"));
    CHECK(host_header_is_loopback("LOCALHOST:8808"));
    CHECK(host_header_is_loopback("127.0.0.1:8808"));
    CHECK(host_header_is_loopback("127.1.2.3"));
    CHECK(host_header_is_loopback("[::1]:8808"));
    CHECK(host_header_is_loopback("localhost."));
    CHECK_FALSE(host_header_is_loopback("rebind.evil.example"));
    CHECK_FALSE(host_header_is_loopback("rebind.evil.example:8808"));
    CHECK_FALSE(host_header_is_loopback("localhost.evil.example"));
    CHECK_FALSE(host_header_is_loopback("127.0.0.1.evil.example"));
    CHECK_FALSE(host_header_is_loopback("[::1"));
    CHECK_FALSE(host_header_is_loopback("[::2]:80"));
    CHECK_FALSE(host_header_is_loopback("localhost:99999"));
    CHECK_FALSE(host_header_is_loopback("10.0.0.1"));

    Served s({}, /*with_auth=*/false);
    auto c = s.client();
    CHECK(c.Get("/metrics")->status == 200);
    CHECK(c.Get("/metrics", {{"Host", "rebind.evil.example"}})->status == 403);
    auto r = c.Post("/mcp", {{"Host", "rebind.evil.example"}}, kInitialize, "application/json");
    REQUIRE(r);
    CHECK(r->status == 403);
}

TEST_CASE("the listener speaks TLS 1.2+ and bounds the handshake", "[gateway][http]") {
    scout::test::TempDir dir;
    const auto id = scout::test::make_self_signed(dir);
    REQUIRE_FALSE(id.cert_file.empty());  // the openssl command is a test dependency
    HttpLimits limits;
    limits.server.head_timeout = std::chrono::milliseconds(1000);
    Served s(limits, true, TlsFiles{id.cert_file, id.key_file});
    const int port = s.transport->port();

    httplib::SSLClient tls_client("127.0.0.1", port);
    tls_client.set_ca_cert_path(id.cert_file.c_str());
    tls_client.enable_server_certificate_verification(true);
    tls_client.set_read_timeout(10, 0);
    auto r = tls_client.Get("/metrics", with_token(kAdminToken));
    REQUIRE(r);
    CHECK(r->status == 200);
    r = tls_client.Post("/mcp", with_token(kAdminToken), kInitialize, "application/json");
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->get_header_value("Mcp-Session-Id").size() == 32);

    // Plain HTTP on the TLS port is no request.
    const int plain = connect_raw(port);
    send_all(plain, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    CHECK(status_of(read_reply(plain, 3000)) == 0);
    ::close(plain);

    // A client that stalls in the handshake is dropped at the head deadline.
    const int stalled = connect_raw(port);
    send_all(stalled, std::string("\x16\x03\x01", 3));
    CHECK(closed_by_server(stalled, 5000));
    ::close(stalled);

    // TLS 1.1 is refused.
    SSL_CTX* old = SSL_CTX_new(TLS_client_method());
    REQUIRE(old != nullptr);
    SSL_CTX_set_min_proto_version(old, TLS1_VERSION);
    SSL_CTX_set_max_proto_version(old, TLS1_1_VERSION);
    SSL_CTX_set_security_level(old, 0);
    const int fd = connect_raw(port);
    SSL* ssl = SSL_new(old);
    SSL_set_fd(ssl, fd);
    CHECK(SSL_connect(ssl) != 1);
    SSL_free(ssl);
    SSL_CTX_free(old);
    ::close(fd);
}

TEST_CASE("unusable TLS files are refused at bind", "[gateway][http]") {
    scout::test::TempDir dir;
    auto created = scout::Catalog::create({}, nullptr);
    REQUIRE(created.ok());
    Gateway gw(created.value(),
               {},
               scout::mcp::Connector{},
               BackendTimings{},
               [](const std::string&, Gateway::Wait) {});
    const std::string junk = dir.file("junk.pem");
    {
        std::FILE* f = std::fopen(junk.c_str(), "w");
        REQUIRE(f != nullptr);
        std::fputs("not a certificate\n", f);
        std::fclose(f);
    }
    for (const TlsFiles& files : {TlsFiles{junk, junk},
                                  TlsFiles{dir.file("missing.pem"), junk},
                                  TlsFiles{"/dev/zero", junk}}) {
        HttpOptions options;
        options.address = {"127.0.0.1", 0};
        options.tls = files;
        HttpTransport t(gw, options);
        const auto refused = t.bind();
        CHECK(refused.code() == scout::Errc::invalid_argument);
    }
    gw.shutdown();
}

TEST_CASE("an event stream drops what a slow client cannot take, and a deaf one is closed",
          "[gateway][http]") {
    std::atomic<int> ended{0};
    std::shared_ptr<EventStream> stream;
    std::mutex m;
    std::condition_variable cv;
    HttpServerOptions o;
    o.limits.write_timeout = std::chrono::milliseconds(1500);
    o.limits.max_stream_buffer = 64u << 10;
    o.handle = [&](HttpRequest, Responder respond) {
        auto s = std::make_shared<EventStream>([&] { ++ended; });
        {
            std::lock_guard lock(m);
            stream = s;
        }
        cv.notify_all();
        HttpResponse r;
        r.content_type = "text/event-stream";
        r.stream = s;
        respond(std::move(r));
    };
    HttpServer server(o);
    REQUIRE(server.bind().ok());
    // Stopped and joined however the test ends (a failed REQUIRE throws past the end).
    struct Serving {
        HttpServer& server;
        std::thread thread;
        ~Serving() {
            server.stop();
            thread.join();
        }
    } serving{server, std::thread([&] { server.serve(); })};

    const int fd = connect_raw(server.port());
    send_all(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    {
        std::unique_lock lock(m);
        REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return stream != nullptr; }));
    }
    // The client reads nothing: once the socket buffers are full, the oldest events are dropped,
    // and when a write has waited the write timeout, the connection is closed and the stream's
    // end reported once. (Bounded: 10 s of events at most.)
    bool dropped = false;
    const std::string event = "data: " + std::string(1000, 'e') + "\n\n";
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int i = 0; ended.load() == 0 && std::chrono::steady_clock::now() < give_up; ++i) {
        dropped = !stream->write(event) || dropped;
        if (i % 64 == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    CHECK(dropped);
    CHECK(ended.load() == 1);
    CHECK(closed_by_server(fd, 5000));
    ::close(fd);
    CHECK_FALSE(stream->write(event));  // an ended stream takes nothing

    // A client that reads gets every event, in order, and the end of the stream.
    stream.reset();
    const int reader = connect_raw(server.port());
    send_all(reader, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    {
        std::unique_lock lock(m);
        REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return stream != nullptr; }));
    }
    for (int i = 0; i < 200; ++i) {
        CHECK(stream->write("data: " + std::to_string(i) + "\n\n"));
    }
    stream->finish("data: end\n\n");
    std::string got;
    pollfd p{reader, POLLIN, 0};
    char chunk[4096];
    while (::poll(&p, 1, 5000) > 0) {
        const ssize_t n = ::recv(reader, chunk, sizeof chunk, 0);
        if (n <= 0) {
            break;
        }
        got.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(reader);
    CHECK(got.find("Content-Type: text/event-stream") != std::string::npos);
    CHECK(got.find("data: 0\n\n") < got.find("data: 199\n\n"));
    CHECK(got.find("data: end\n\n") != std::string::npos);
    CHECK(got.find("\r\n0\r\n\r\n") != std::string::npos);  // the last chunk
}

TEST_CASE("/healthz and /readyz answer without a token", "[gateway][http]") {
    Served s;
    auto c = s.client();
    auto r = c.Get("/healthz");
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(Json::parse(r->body) == Json{{"status", "alive"}});
    r = c.Get("/readyz");
    REQUIRE(r);
    CHECK(r->status == 200);  // no backends: the start-up is over at once
    const Json ready = Json::parse(r->body);
    CHECK(ready["status"] == "ready");
    CHECK(ready["tools"] == 0);
    CHECK(ready["generation"].is_number_unsigned());
    CHECK(ready["backends"] ==
          Json{{"active", 0}, {"degraded", 0}, {"starting", 0}, {"stopped", 0}});
    CHECK(ready.contains("embedder"));
    CHECK(c.Post("/healthz", "{}", "application/json")->status == 405);
    CHECK(c.Post("/readyz", "{}", "application/json")->status == 405);
    CHECK(c.Get("/metrics")->status == 401);  // the probes' exemption is theirs alone

    // Requests served past the head carry a request id, a fresh one each.
    auto first = c.Post("/mcp", with_token(kAdminToken), kInitialize, "application/json");
    auto second = c.Get("/metrics", with_token(kAdminToken));
    REQUIRE(first);
    REQUIRE(second);
    const std::string id = first->get_header_value("X-Request-Id");
    CHECK(id.size() == 16);
    CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(second->get_header_value("X-Request-Id").size() == 16);
    CHECK(second->get_header_value("X-Request-Id") != id);

    Served open({}, /*with_auth=*/false);
    auto o = open.client();
    CHECK(o.Get("/healthz")->status == 200);
    CHECK(o.Get("/healthz", {{"Host", "rebind.evil.example"}})->status == 403);
    CHECK(o.Get("/readyz", {{"Host", "rebind.evil.example"}})->status == 403);
}
