// http_client.cpp: see http_client.hpp. libcurl does the protocol work: TLS and its
// verification, proxies from the environment, chunked and Content-Length framing. This file
// turns its outcomes into messages that say what went wrong.
#include "http/http_client.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <mutex>

#include <curl/curl.h>

#include "util/printable.hpp"

namespace scout::detail {
namespace {

/// An idle handle keeps its connections open; more than this many idle handles are closed.
constexpr std::size_t kMaxIdleHandles = 8;

/// curl_global_init is not thread-safe: run it once, before the first handle.
void init_curl_once() {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    (void)initialised;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(
        out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

/// What one transfer collects: the body (up to the cap) and Retry-After.
struct Sink {
    std::string body;
    std::size_t cap = 0;
    bool overflow = false;
    double retry_after_s = -1;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* sink = static_cast<Sink*>(user);
    const std::size_t n = size * count;
    if (sink->body.size() + n > sink->cap) {
        sink->overflow = true;
        return 0;  // libcurl stops the transfer with CURLE_WRITE_ERROR
    }
    sink->body.append(data, n);
    return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* sink = static_cast<Sink*>(user);
    const std::size_t n = size * count;
    const std::string_view line(data, n);
    if (line.rfind("HTTP/", 0) == 0) {
        sink->retry_after_s = -1;  // a new response (after a 100 Continue, say)
        return n;
    }
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && lower(line.substr(0, colon)) == "retry-after") {
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
            value.remove_prefix(1);
        }
        double s = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), s);
        if (ec == std::errc() && s >= 0 && end != value.data()) {
            sink->retry_after_s = s;
        }
    }
    return n;
}

struct CurlSlist {
    curl_slist* list = nullptr;
    CurlSlist() = default;
    CurlSlist(const CurlSlist&) = delete;
    CurlSlist& operator=(const CurlSlist&) = delete;
    ~CurlSlist() { curl_slist_free_all(list); }
    void add(const std::string& line) {
        if (curl_slist* grown = curl_slist_append(list, line.c_str()); grown != nullptr) {
            list = grown;
        }
    }
};

/// The failure of a transfer as a message that says what happened.
Status describe(CURLcode code,
                const char* detail_text,
                const std::string& url,
                const HttpClientOptions& options,
                std::chrono::milliseconds timeout,
                const Sink& sink,
                bool& retryable) {
    const std::string detail = detail_text[0] != '\0' ? detail_text : curl_easy_strerror(code);
    const std::string where = clipped(url, 200);
    retryable = true;
    switch (code) {
        case CURLE_WRITE_ERROR:
        case CURLE_FILESIZE_EXCEEDED:
            if (sink.overflow || code == CURLE_FILESIZE_EXCEEDED) {
                return Status{Errc::unavailable,
                              "response from " + where + " larger than " +
                                  std::to_string(options.max_response_bytes) + " bytes"};
            }
            break;
        case CURLE_OPERATION_TIMEDOUT:
            return Status{Errc::unavailable,
                          "request to " + where + " timed out after " +
                              std::to_string(timeout.count()) + " ms (" + detail + ")"};
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_COULDNT_CONNECT:
            return Status{Errc::unavailable, "connect to " + where + " failed: " + detail};
        case CURLE_PEER_FAILED_VERIFICATION:
            retryable = false;
            return Status{Errc::unavailable,
                          "the TLS certificate of " + where + " is untrusted (" + detail +
                              "); trusted authorities: " +
                              (options.ca_file.empty() ? std::string("the system CA bundle")
                                                       : options.ca_file)};
        case CURLE_SSL_CACERT_BADFILE:
            retryable = false;
            return Status{
                Errc::unavailable,
                "cannot read the CA bundle " +
                    (options.ca_file.empty() ? std::string("of the system") : options.ca_file) +
                    ": " + detail};
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
            return Status{
                Errc::unavailable,
                "connection to " + where + " closed before a complete HTTP response: " + detail};
        default:
            break;
    }
    return Status{Errc::unavailable, "request to " + where + " failed: " + detail};
}

}  // namespace

struct HttpClient::Pool {
    std::mutex mutex;
    std::vector<CURL*> idle;  // guarded by mutex
    std::atomic<std::size_t> connections{0};

    Pool() = default;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    ~Pool() {
        for (CURL* h : idle) {
            curl_easy_cleanup(h);
        }
    }

    /// An idle handle (with its open connections), or a new one; nullptr when out of memory.
    CURL* take() {
        {
            std::lock_guard lock(mutex);
            if (!idle.empty()) {
                CURL* h = idle.back();
                idle.pop_back();
                return h;
            }
        }
        init_curl_once();
        return curl_easy_init();
    }

    void give_back(CURL* h) {
        {
            std::lock_guard lock(mutex);
            if (idle.size() < kMaxIdleHandles) {
                idle.push_back(h);
                return;
            }
        }
        curl_easy_cleanup(h);
    }
};

bool is_loopback_host(const std::string& host) {
    if (host == "localhost" || host == "::1" || host == "[::1]") {
        return true;
    }
    in_addr address{};
    return ::inet_pton(AF_INET, host.c_str(), &address) == 1 &&
           (ntohl(address.s_addr) >> 24U) == 127U;
}

Result<HttpUrl> parse_http_url(const std::string& url) {
    HttpUrl out;
    std::string_view rest(url);
    if (rest.rfind("https://", 0) == 0) {
        out.scheme = "https";
        out.port = 443;
        rest.remove_prefix(8);
    } else if (rest.rfind("http://", 0) == 0) {
        out.scheme = "http";
        rest.remove_prefix(7);
    } else {
        return Status{
            Errc::invalid_argument,
            "embedder URL must start with https:// or http:// (got '" + clipped(url) + "')"};
    }
    if (rest.find_first_of("?#") != std::string_view::npos) {
        return Status{Errc::invalid_argument,
                      "embedder URL: no query or fragment (Azure OpenAI's api-version is an "
                      "option of its own): " +
                          clipped(url)};
    }
    const std::size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    out.path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
    while (!out.path.empty() && out.path.back() == '/') {
        out.path.pop_back();
    }
    if (authority.find('@') != std::string_view::npos ||
        authority.find('[') != std::string_view::npos) {
        return Status{Errc::invalid_argument,
                      "embedder URL: user info and IPv6 literals are not supported"};
    }
    if (const std::size_t colon = authority.find(':'); colon != std::string_view::npos) {
        unsigned port = 0;
        const std::string_view digits = authority.substr(colon + 1);
        const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
        if (ec != std::errc() || p != digits.data() + digits.size() || port == 0 || port > 65535) {
            return Status{Errc::invalid_argument, "embedder URL has a bad port: " + clipped(url)};
        }
        out.port = static_cast<std::uint16_t>(port);
        authority = authority.substr(0, colon);
    }
    if (authority.empty()) {
        return Status{Errc::invalid_argument, "embedder URL has no host: " + clipped(url)};
    }
    out.host = std::string(authority);
    return out;
}

std::string to_string(const HttpUrl& url) {
    return url.scheme + "://" + url.host + ":" + std::to_string(url.port) + url.path;
}

HttpClient::HttpClient(HttpClientOptions options)
    : options_(std::move(options)), pool_(std::make_unique<Pool>()) {}

HttpClient::~HttpClient() = default;

std::size_t HttpClient::connections_opened() const noexcept {
    return pool_->connections.load();
}

Result<HttpResponse> HttpClient::post(const std::string& url,
                                      const std::vector<std::string>& headers,
                                      const std::string& body,
                                      std::chrono::milliseconds timeout,
                                      bool& retryable) {
    retryable = true;
    CURL* h = pool_->take();
    if (h == nullptr) {
        return Status{Errc::unavailable, "libcurl could not make a handle"};
    }
    // Settings of the previous request are dropped; its open connections are kept.
    curl_easy_reset(h);
    Sink sink;
    sink.cap = options_.max_response_bytes;
    CurlSlist header_list;
    header_list.add("Content-Type: application/json");
    header_list.add("Accept: application/json");
    header_list.add("Expect:");  // no 100-continue round trip before a large body
    for (const std::string& line : headers) {
        header_list.add(line);
    }
    char error[CURL_ERROR_SIZE] = {};
    const auto connect_ms = static_cast<long>(std::min(options_.connect_timeout, timeout).count());
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: we are threaded
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, std::max(1L, connect_ms));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, std::max(1L, static_cast<long>(timeout.count())));
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(sink.cap));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, header_list.list);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "scout");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &sink);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options_.ca_file.empty()) {
        curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
    }
    // Redirects are not followed: the key would go wherever the service points.
    const CURLcode code = curl_easy_perform(h);
    long opened = 0;
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &opened);
    pool_->connections.fetch_add(static_cast<std::size_t>(std::max(0L, opened)));
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    // The handle must not keep pointers into this frame.
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    pool_->give_back(h);
    if (code != CURLE_OK) {
        return describe(code, error, url, options_, timeout, sink, retryable);
    }
    return HttpResponse{static_cast<int>(status), std::move(sink.body), sink.retry_after_s};
}

}  // namespace scout::detail
