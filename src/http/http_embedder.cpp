// http_embedder.cpp: batching, the OpenAI embeddings wire format, and retries with exponential
// back-off and full jitter for the HTTP embedder; the endpoint and headers of OpenAI and Azure
// OpenAI.
#include "scout/http/http_embedder.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "http/embeddings_response.hpp"
#include "http/http_client.hpp"
#include "util/file_io.hpp"
#include "util/printable.hpp"

namespace scout {

// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] HttpEmbedder::State {
    explicit State(detail::HttpClientOptions client_options) : client(std::move(client_options)) {}
    detail::HttpClient client;
    std::string endpoint;              ///< base_url + "/embeddings" [+ "?api-version=V"]
    std::vector<std::string> headers;  ///< the key's header and the extra headers
    std::atomic<std::size_t> requests{0};
};

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string();
}

bool is_azure(const HttpEmbedderOptions& options) {
    return !options.api_version.empty();
}

/// The key given, else $SCOUT_EMBEDDER_API_KEY, else $AZURE_OPENAI_API_KEY (Azure) or
/// $OPENAI_API_KEY.
std::string api_key_of(const HttpEmbedderOptions& options) {
    if (!options.api_key.empty()) {
        return options.api_key;
    }
    std::string key = env_or_empty("SCOUT_EMBEDDER_API_KEY");
    if (!key.empty()) {
        return key;
    }
    return env_or_empty(is_azure(options) ? "AZURE_OPENAI_API_KEY" : "OPENAI_API_KEY");
}

/// "Name: value" with a token for a name and no line breaks (which would smuggle in headers).
bool valid_header(const std::string& line) {
    const std::size_t colon = line.find(':');
    if (colon == 0 || colon == std::string::npos) {
        return false;
    }
    for (std::size_t i = 0; i < colon; ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        if (std::isalnum(c) == 0 &&
            std::string_view("!#$%&'*+-.^_`|~").find(line[i]) == std::string_view::npos) {
            return false;
        }
    }
    return line.find_first_of("\r\n") == std::string::npos && line.find('\0') == std::string::npos;
}

/// A header whose name says it carries a credential.
bool carries_credential(const std::string& line) {
    std::string name = line.substr(0, line.find(':'));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    for (const char* word : {"key", "token", "auth", "secret", "cookie"}) {
        if (name.find(word) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string percent_encoded(const std::string& text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) != 0 || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
            out += ch;
        } else {
            out += '%';
            out += kHex[c >> 4U];
            out += kHex[c & 15U];
        }
    }
    return out;
}

/// The last segment of the URL's path: Azure's deployment name.
std::string last_segment(const std::string& path) {
    return path.substr(path.rfind('/') + 1);
}

std::string excerpt(const std::string& body) {
    return detail::clipped(body, 200);
}

milliseconds backoff(const HttpEmbedderOptions& o, std::size_t attempt) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    const double base =
        std::min(static_cast<double>(o.max_backoff.count()),
                 static_cast<double>(o.initial_backoff.count()) *
                     std::ldexp(1.0, static_cast<int>(std::min<std::size_t>(attempt, 30))));
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    return milliseconds(static_cast<long long>(base * jitter(rng)));
}

}  // namespace

HttpEmbedder::HttpEmbedder(HttpEmbedderOptions options,
                           std::size_t dim,
                           std::shared_ptr<State> state)
    : options_(std::move(options)), dim_(dim), state_(std::move(state)) {}

Result<std::shared_ptr<HttpEmbedder>> HttpEmbedder::create(HttpEmbedderOptions options) {
    auto url = detail::parse_http_url(options.base_url);
    if (!url) {
        return url.status();
    }
    if (options.model.empty() && is_azure(options)) {
        options.model = last_segment(url->path);
    }
    if (options.model.empty()) {
        return Status{Errc::invalid_argument, "the HTTP embedder needs a model name"};
    }
    if (options.batch_size == 0 || options.request_timeout.count() <= 0 ||
        options.connect_timeout.count() <= 0 || options.total_timeout.count() <= 0 ||
        options.max_response_bytes == 0 || options.dimensions > detail::kMaxHttpEmbeddingDim) {
        return Status{Errc::invalid_argument,
                      "HTTP embedder: batch size, timeouts, response cap and dimensions out of "
                      "range"};
    }
    for (const std::string& header : options.headers) {
        if (!valid_header(header)) {
            return Status{Errc::invalid_argument,
                          "HTTP embedder: a header must be 'Name: value' on one line (got '" +
                              detail::clipped(header, 80) + "')"};
        }
    }
    if (sends_key_in_cleartext(options) && !options.allow_cleartext_key) {
        return Status{Errc::invalid_argument,
                      "the HTTP embedder would send its API key in cleartext over http:// to " +
                          url->host + ", which is not loopback: use https, or allow it explicitly"};
    }
    if (options.ca_file.empty()) {
        options.ca_file = env_or_empty("SCOUT_CA_BUNDLE");
    }
    if (!options.ca_file.empty()) {
        // libcurl reads the bundle; a FIFO or a device here would block or never end there.
        if (Status s = detail::check_readable_file(options.ca_file); !s.ok()) {
            return Status{Errc::invalid_argument, "cannot read the CA bundle: " + s.message()};
        }
    }
    detail::HttpClientOptions client_options;
    client_options.ca_file = options.ca_file;
    client_options.connect_timeout = options.connect_timeout;
    client_options.max_response_bytes = options.max_response_bytes;
    auto state = std::make_shared<State>(std::move(client_options));
    state->endpoint = detail::to_string(url.value()) + "/embeddings";
    if (is_azure(options)) {
        state->endpoint += "?api-version=" + percent_encoded(options.api_version);
    }
    if (const std::string key = api_key_of(options); !key.empty()) {
        state->headers.push_back(is_azure(options) ? "api-key: " + key
                                                   : "Authorization: Bearer " + key);
    }
    state->headers.insert(state->headers.end(), options.headers.begin(), options.headers.end());
    const std::size_t dim = options.dimensions;
    auto embedder =
        std::shared_ptr<HttpEmbedder>(new HttpEmbedder(std::move(options), dim, std::move(state)));
    if (dim == 0) {
        const std::string probe[1] = {"dimension probe"};
        auto out = embedder->embed_batch(probe, Clock::now() + embedder->options_.total_timeout);
        if (!out) {
            return Status{out.status().code(),
                          "probing the embedding service: " + out.status().message()};
        }
        embedder->dim_ = out->size();
    }
    return embedder;
}

std::string HttpEmbedder::model_id() const {
    return "http:" + options_.model + ":" + std::to_string(dim_);
}

bool HttpEmbedder::sends_key_in_cleartext(const HttpEmbedderOptions& options) {
    auto url = detail::parse_http_url(options.base_url);
    if (!url || url->scheme != "http" || detail::is_loopback_host(url->host)) {
        return false;
    }
    return !api_key_of(options).empty() ||
           std::any_of(options.headers.begin(), options.headers.end(), carries_credential);
}

std::size_t HttpEmbedder::connections_opened() const noexcept {
    return state_->client.connections_opened();
}

std::size_t HttpEmbedder::requests_sent() const noexcept {
    return state_->requests.load();
}

Result<std::vector<float>> HttpEmbedder::embed(std::span<const std::string> texts) {
    const auto deadline = Clock::now() + options_.total_timeout;
    std::vector<float> out;
    out.reserve(texts.size() * dim_);
    for (std::size_t start = 0; start < texts.size(); start += options_.batch_size) {
        const std::size_t n = std::min(options_.batch_size, texts.size() - start);
        auto part = embed_batch(texts.subspan(start, n), deadline);
        if (!part) {
            return part.status();
        }
        out.insert(out.end(), part->begin(), part->end());
    }
    return out;
}

Result<std::vector<float>> HttpEmbedder::embed_batch(std::span<const std::string> texts,
                                                     Clock::time_point deadline) {
    nlohmann::json request{{"model", options_.model}, {"input", nlohmann::json::array()}};
    for (const std::string& t : texts) {
        // Invalid UTF-8 would make dump() throw; replace it instead.
        request["input"].push_back(t);
    }
    if (options_.dimensions != 0) {
        request["dimensions"] = options_.dimensions;
    }
    const std::string body = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string last_error;
    for (std::size_t attempt = 0;; ++attempt) {
        const auto now = Clock::now();
        if (now >= deadline) {
            return Status{Errc::unavailable,
                          "embedding gave up after " +
                              std::to_string(options_.total_timeout.count()) + " ms" +
                              (last_error.empty() ? "" : ": " + last_error)};
        }
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - now);
        state_->requests.fetch_add(1);
        bool retryable = true;
        auto response = state_->client.post(state_->endpoint,
                                            state_->headers,
                                            body,
                                            std::min(options_.request_timeout, left),
                                            retryable);
        double retry_after_s = -1;
        if (response && response->status == 200) {
            std::size_t dim = dim_;
            auto parsed = detail::parse_embeddings_response(response->body, texts.size(), dim);
            return parsed;  // a well-formed but wrong answer is not retried: it would repeat
        }
        if (response) {
            last_error =
                "HTTP " + std::to_string(response->status) + ": " + excerpt(response->body);
            if (response->status != 429 && response->status < 500) {
                return Status{Errc::unavailable, "embedding service answered " + last_error};
            }
            retry_after_s = response->retry_after_s;
        } else if (!retryable) {
            return response.status();  // another attempt would fail the same way
        } else {
            last_error = response.status().message();
        }
        if (attempt >= options_.max_retries) {
            return Status{Errc::unavailable,
                          "embedding failed after " + std::to_string(attempt + 1) +
                              " attempts: " + last_error};
        }
        milliseconds wait = backoff(options_, attempt);
        if (retry_after_s >= 0) {
            wait = std::max(
                wait,
                milliseconds(static_cast<long long>(std::min(retry_after_s, 3600.0) * 1000.0)));
        }
        if (Clock::now() + wait >= deadline) {
            return Status{Errc::unavailable,
                          "embedding gave up: waiting " + std::to_string(wait.count()) +
                              " ms to retry would pass the " +
                              std::to_string(options_.total_timeout.count()) + " ms bound; " +
                              last_error};
        }
        std::this_thread::sleep_for(wait);
    }
}

}  // namespace scout
