// http_embedder.hpp: the component scout::http (libscout_http, which links libcurl): an
// OpenAI-compatible embedding service as an Embedder. Its options are in scout/embedder.hpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/export.hpp"
#include "scout/http/scout_http.h"
#include "scout/status.hpp"

namespace scout {

/// Thread-safe. Connections are kept alive and reused across embed() calls (a pool of
/// connections, one per concurrent request). embed() fails with unavailable (service down,
/// timeouts, an untrusted certificate, retries exhausted, HTTP errors, malformed JSON, a
/// response over the size cap) or dimension_mismatch (vectors of the wrong size).
class SCOUT_API HttpEmbedder final : public Embedder {
public:
    /// Validates the options (invalid_argument, also for a key that would go in cleartext) and,
    /// when dimensions == 0, probes the service.
    [[nodiscard]] static Result<std::shared_ptr<HttpEmbedder>> create(HttpEmbedderOptions options);

    /// "http:<model>:<dim>".
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override { return dim_; }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Corpus-blind: no fit().
    [[nodiscard]] bool reads_corpus() const override { return false; }

    /// HTTP requests sent so far, retries included (for tests and diagnostics).
    [[nodiscard]] std::size_t requests_sent() const noexcept;
    /// TCP connections opened so far (fewer than requests when connections are reused).
    [[nodiscard]] std::size_t connections_opened() const noexcept;

    /// True when these options would send a key (api_key, given or from the environment as
    /// create() finds it, or a header that looks like one) in cleartext (plain http) to a host
    /// that is not loopback (localhost, 127.0.0.0/8, ::1).
    [[nodiscard]] static bool sends_key_in_cleartext(const HttpEmbedderOptions& options);

private:
    struct State;  // the HTTP client, the request URL and headers, the request counter
    HttpEmbedder(HttpEmbedderOptions options, std::size_t dim, std::shared_ptr<State> state);

    Result<std::vector<float>> embed_batch(std::span<const std::string> texts,
                                           std::chrono::steady_clock::time_point deadline);

    HttpEmbedderOptions options_;
    std::size_t dim_;
    std::shared_ptr<State> state_;
};

/// Lets the core make HTTP embedders from settings (make_http_embedder, the C ABI's
/// {"kind": "http"}): installs HttpEmbedder::create with set_http_embedder_factory.
SCOUT_API void register_http_embedder() noexcept;

}  // namespace scout
