// embedder.hpp: the interface through which a host supplies text embeddings to the dense branch.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "scout/status.hpp"

namespace scout {

/// Turns texts into fixed-size vectors. Implementations must be thread-safe: searches on
/// several threads embed their queries concurrently. `embed` may fail with a Status or even
/// throw; the library treats both as "embedder unavailable" and answers with BM25 alone.
class Embedder {
public:
    virtual ~Embedder() = default;

    /// Identifies the model; indexes built with one model id are not searched with another.
    [[nodiscard]] virtual std::string model_id() const = 0;
    /// Number of components of every vector.
    [[nodiscard]] virtual std::size_t dim() const = 0;
    /// Row-major texts.size() x dim() matrix. Vectors need not be normalized.
    [[nodiscard]] virtual Result<std::vector<float>> embed(std::span<const std::string> texts) = 0;
    /// Optional hook: Catalog::commit passes the text of every document it is about to index,
    /// before embedding any of them, so corpus-aware embedders can derive statistics (e.g. word
    /// weights). An embedder whose output changes in fit() must change model_id() with it: the
    /// catalog's vector cache is keyed by model id. Called from the committing thread, possibly
    /// while other threads embed queries. Default: nothing.
    virtual void fit(std::span<const std::string> corpus) { (void)corpus; }
};

/// Deterministic feature-hashing embedder: signed hashes of analyzed words and character
/// trigrams into `dim` buckets. No model file, no semantics beyond shared words and spelling;
/// meant for tests, and as a dense branch of last resort.
class HashingEmbedder final : public Embedder {
public:
    explicit HashingEmbedder(std::size_t dim = 256) : dim_(dim == 0 ? 1 : dim) {}
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override { return dim_; }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;

private:
    std::size_t dim_;
};

}  // namespace scout
