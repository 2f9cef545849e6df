// http_client.hpp: the HTTP client of the HTTP embedder, on libcurl: http and https (the system CA
// bundle or a given one), the proxies of the environment (HTTPS_PROXY, NO_PROXY, ...), connections
// kept alive between requests, connect and whole-request deadlines, and a cap on response size.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail {

struct HttpUrl {
    std::string scheme;  ///< "http" or "https"
    std::string host;
    std::uint16_t port = 80;
    std::string path;  ///< without a trailing '/', possibly empty
};

/// True for "localhost", an IPv4 address in 127.0.0.0/8 and "::1" (bracketed or not).
[[nodiscard]] bool is_loopback_host(const std::string& host);

/// Parses "http[s]://host[:port][/path]". Other schemes, user info, IPv6 literals and a query
/// or fragment are invalid_argument.
[[nodiscard]] Result<HttpUrl> parse_http_url(const std::string& url);

/// "scheme://host:port" + path: the URL as it is requested.
[[nodiscard]] std::string to_string(const HttpUrl& url);

struct HttpResponse {
    int status = 0;
    std::string body;
    /// Seconds from a Retry-After header holding a number; -1 when absent or a date.
    double retry_after_s = -1;
};

struct HttpClientOptions {
    /// PEM file of the certificate authorities trusted for https; empty: the system bundle.
    std::string ca_file;
    std::chrono::milliseconds connect_timeout{2000};
    /// A longer response is an error (unavailable), read no further.
    std::size_t max_response_bytes = std::size_t{64} << 20U;
};

/// POSTs JSON. Connections are kept alive and reused by later requests: a pool of libcurl
/// handles, each used by one request at a time, so concurrent posts neither share nor wait for
/// a connection. Thread-safe.
class HttpClient {
public:
    explicit HttpClient(HttpClientOptions options);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    /// POSTs `body` (application/json) to `url` with the extra `headers` ("Name: value").
    /// Errors are unavailable, their messages saying what failed: "connect", "timed out",
    /// "untrusted" (a certificate no trusted authority signed), "larger than" (the size cap),
    /// "closed" (the connection ended before a complete response). `retryable` is set false for
    /// failures another attempt would repeat (an untrusted certificate, an unreadable CA file).
    [[nodiscard]] Result<HttpResponse> post(const std::string& url,
                                            const std::vector<std::string>& headers,
                                            const std::string& body,
                                            std::chrono::milliseconds timeout,
                                            bool& retryable);

    /// TCP connections opened so far (for tests of connection reuse).
    [[nodiscard]] std::size_t connections_opened() const noexcept;

private:
    struct Pool;  // idle libcurl handles and the counters
    HttpClientOptions options_;
    std::unique_ptr<Pool> pool_;
};

}  // namespace scout::detail
