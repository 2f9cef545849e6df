// http_embedder.cpp: batching, the OpenAI embeddings wire format, and retries with exponential
// back-off and full jitter for the HTTP embedder.
#include "scout/http_embedder.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "embed/http_client.hpp"

namespace scout {

struct HttpEmbedder::State {
    detail::HttpUrl url;
    std::string api_key;
    std::atomic<std::size_t> requests{0};
};

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string();
}

std::string excerpt(const std::string& body) {
    std::string out = body.substr(0, 200);
    std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    return out;
}

milliseconds backoff(const HttpEmbedderOptions& o, std::size_t attempt) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    const double base = std::min(static_cast<double>(o.max_backoff.count()),
                                 static_cast<double>(o.initial_backoff.count()) * std::ldexp(1.0, static_cast<int>(std::min<std::size_t>(attempt, 30))));
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    return milliseconds(static_cast<long long>(base * jitter(rng)));
}

/// {"data":[{"embedding":[...],"index":i},...]} -> texts x dim floats in input order.
/// `dim` 0 accepts the size of the first vector.
Result<std::vector<float>> parse_embeddings(const std::string& body, std::size_t texts, std::size_t& dim) {
    const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object() || !json.contains("data") || !json["data"].is_array()) {
        return Status{Errc::unavailable, "malformed embeddings response: " + excerpt(body)};
    }
    const auto& data = json["data"];
    if (data.size() != texts) {
        return Status{Errc::unavailable, "embeddings response holds " + std::to_string(data.size()) +
                                             " vectors for " + std::to_string(texts) + " texts"};
    }
    std::vector<float> out;
    std::vector<bool> seen(texts, false);
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto& item = data[i];
        if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
            return Status{Errc::unavailable, "embeddings response item without an \"embedding\" array"};
        }
        std::size_t index = i;
        if (item.contains("index")) {
            if (!item["index"].is_number_unsigned() || item["index"].get<std::size_t>() >= texts) {
                return Status{Errc::unavailable, "embeddings response has a bad \"index\""};
            }
            index = item["index"].get<std::size_t>();
        }
        if (seen[index]) {
            return Status{Errc::unavailable, "embeddings response repeats index " + std::to_string(index)};
        }
        seen[index] = true;
        const auto& vec = item["embedding"];
        if (dim == 0) {
            dim = vec.size();
        }
        if (vec.size() != dim || dim == 0) {
            return Status{Errc::dimension_mismatch, "embedding service returned " + std::to_string(vec.size()) +
                                                        " dimensions, expected " + std::to_string(dim)};
        }
        out.resize(texts * dim);
        for (std::size_t j = 0; j < dim; ++j) {
            if (!vec[j].is_number()) {
                return Status{Errc::unavailable, "embeddings response holds a non-number"};
            }
            out[index * dim + j] = vec[j].get<float>();
        }
    }
    return out;
}

}  // namespace

HttpEmbedder::HttpEmbedder(HttpEmbedderOptions options, std::size_t dim, std::shared_ptr<State> state)
    : options_(std::move(options)), dim_(dim), state_(std::move(state)) {}

Result<std::shared_ptr<HttpEmbedder>> HttpEmbedder::create(HttpEmbedderOptions options) {
    auto url = detail::parse_http_url(options.base_url);
    if (!url) {
        return url.status();
    }
    if (options.model.empty()) {
        return Status{Errc::invalid_argument, "the HTTP embedder needs a model name"};
    }
    if (options.batch_size == 0 || options.request_timeout.count() <= 0 || options.connect_timeout.count() <= 0 ||
        options.total_timeout.count() <= 0 || options.dimensions > 65536) {
        return Status{Errc::invalid_argument, "HTTP embedder: batch size, timeouts and dimensions out of range"};
    }
    auto state = std::make_shared<State>();
    state->url = std::move(url.value());
    state->api_key = options.api_key;
    if (state->api_key.empty()) {
        state->api_key = env_or_empty("SCOUT_EMBEDDER_API_KEY");
    }
    if (state->api_key.empty()) {
        state->api_key = env_or_empty("OPENAI_API_KEY");
    }
    const std::size_t dim = options.dimensions;
    auto embedder = std::make_shared<HttpEmbedder>(std::move(options), dim, std::move(state));
    if (dim == 0) {
        const std::string probe[1] = {"dimension probe"};
        auto out = embedder->embed_batch(probe, Clock::now() + embedder->options_.total_timeout);
        if (!out) {
            return Status{out.status().code(), "probing the embedding service: " + out.status().message()};
        }
        embedder->dim_ = out->size();
    }
    return embedder;
}

std::string HttpEmbedder::model_id() const { return "http:" + options_.model + ":" + std::to_string(dim_); }

std::size_t HttpEmbedder::requests_sent() const noexcept { return state_->requests.load(); }

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

Result<std::vector<float>> HttpEmbedder::embed_batch(std::span<const std::string> texts, Clock::time_point deadline) {
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
            return Status{Errc::unavailable, "embedding gave up after " + std::to_string(options_.total_timeout.count()) +
                                                 " ms" + (last_error.empty() ? "" : ": " + last_error)};
        }
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - now);
        state_->requests.fetch_add(1);
        auto response = detail::http_post(state_->url, "/embeddings", body, state_->api_key,
                                          options_.connect_timeout, std::min(options_.request_timeout, left));
        double retry_after_s = -1;
        if (response && response->status == 200) {
            std::size_t dim = dim_;
            auto parsed = parse_embeddings(response->body, texts.size(), dim);
            return parsed;  // a well-formed but wrong answer is not retried: it would repeat
        }
        if (response) {
            last_error = "HTTP " + std::to_string(response->status) + ": " + excerpt(response->body);
            if (response->status != 429 && response->status < 500) {
                return Status{Errc::unavailable, "embedding service answered " + last_error};
            }
            retry_after_s = response->retry_after_s;
        } else {
            last_error = response.status().message();
        }
        if (attempt >= options_.max_retries) {
            return Status{Errc::unavailable,
                          "embedding failed after " + std::to_string(attempt + 1) + " attempts: " + last_error};
        }
        milliseconds wait = backoff(options_, attempt);
        if (retry_after_s >= 0) {
            wait = std::max(wait, milliseconds(static_cast<long long>(std::min(retry_after_s, 3600.0) * 1000.0)));
        }
        if (Clock::now() + wait >= deadline) {
            return Status{Errc::unavailable, "embedding gave up: waiting " + std::to_string(wait.count()) +
                                                 " ms to retry would pass the " +
                                                 std::to_string(options_.total_timeout.count()) + " ms bound; " + last_error};
        }
        std::this_thread::sleep_for(wait);
    }
}

}  // namespace scout
