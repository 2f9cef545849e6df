// http_client.hpp: the smallest HTTP/1.1 client the HTTP embedder needs: one POST per
// connection over plain TCP (http:// only), with connect and whole-request deadlines.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "scout/status.hpp"

namespace scout::detail {

struct HttpUrl {
    std::string host;
    std::uint16_t port = 80;
    std::string path;  ///< without a trailing '/', possibly empty
};

/// Parses "http://host[:port][/path]". https and other schemes are invalid_argument.
[[nodiscard]] Result<HttpUrl> parse_http_url(const std::string& url);

struct HttpResponse {
    int status = 0;
    std::string body;
    /// Seconds from a Retry-After header holding a number; -1 when absent or a date.
    double retry_after_s = -1;
};

/// POSTs `body` as JSON to url.path + `path_suffix`. Errors: unavailable for connection
/// failures ("connect"), timeouts ("timed out") and malformed responses; each message says which.
/// Reads at most 64 MiB of response. Thread-safe (no shared state).
[[nodiscard]] Result<HttpResponse> http_post(const HttpUrl& url, const std::string& path_suffix,
                                             const std::string& body, const std::string& bearer_token,
                                             std::chrono::milliseconds connect_timeout,
                                             std::chrono::milliseconds request_timeout);

}  // namespace scout::detail
