// http_embedder.hpp: an Embedder that calls an OpenAI-compatible embedding service
// (POST {base_url}/embeddings), e.g. OpenAI, Ollama, vLLM, text-embeddings-inference.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/status.hpp"

namespace scout {

struct HttpEmbedderOptions {
    /// "http://host[:port][/path]"; requests go to base_url + "/embeddings". Plain HTTP only.
    std::string base_url;
    std::string model;
    /// Sent as "dimensions" when non-zero, and then also the expected vector size. When zero,
    /// create() learns the size from one probe request.
    std::size_t dimensions = 0;
    /// Bearer token. When empty: $SCOUT_EMBEDDER_API_KEY, else $OPENAI_API_KEY, else none.
    std::string api_key;
    std::size_t batch_size = 16;  ///< texts per request
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds request_timeout{30000};
    /// Retries after the first attempt, on 429, 5xx, connection errors and timeouts.
    std::size_t max_retries = 4;
    /// Back-off before retry n is uniform in [0.5, 1] x min(max_backoff, initial_backoff * 2^n);
    /// a Retry-After header (seconds) replaces it when longer.
    std::chrono::milliseconds initial_backoff{250};
    std::chrono::milliseconds max_backoff{8000};
    /// Bound on one embed() call, retries and waits included.
    std::chrono::milliseconds total_timeout{60000};
};

/// Thread-safe: holds no mutable state but an atomic request counter; each request opens its own
/// connection. embed() fails with unavailable (service down, timeouts, retries exhausted,
/// HTTP errors, malformed JSON) or dimension_mismatch (vectors of the wrong size).
class HttpEmbedder final : public Embedder {
public:
    /// Validates the options (invalid_argument) and, when dimensions == 0, probes the service.
    [[nodiscard]] static Result<std::shared_ptr<HttpEmbedder>> create(HttpEmbedderOptions options);

    /// "http:<model>:<dim>".
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override { return dim_; }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;

    /// HTTP requests sent so far, retries included (for tests and diagnostics).
    [[nodiscard]] std::size_t requests_sent() const noexcept;

    struct State;
    HttpEmbedder(HttpEmbedderOptions options, std::size_t dim, std::shared_ptr<State> state);

private:
    Result<std::vector<float>> embed_batch(std::span<const std::string> texts,
                                           std::chrono::steady_clock::time_point deadline);

    HttpEmbedderOptions options_;
    std::size_t dim_;
    std::shared_ptr<State> state_;
};

}  // namespace scout
