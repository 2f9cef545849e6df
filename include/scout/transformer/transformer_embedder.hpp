// transformer_embedder.hpp: the component scout::transformer (libscout_transformer, built on
// Eigen, which it keeps inside): a BERT-family sentence encoder run in process, as an Embedder.
// Its options are in scout/embedder.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/embedder.hpp"
#include "scout/export.hpp"
#include "scout/status.hpp"
#include "scout/transformer/scout_transformer.h"

namespace scout {

namespace detail {
struct TransformerAccess;  // tests and benchmarks reach the state through it
}

/// Thread-safe and immutable once loaded: any number of threads may call embed() at once.
class SCOUT_API TransformerEmbedder final : public Embedder {
public:
    /// Loads `dir`: config.json (model_type bert), model.safetensors (F32, F16 or BF16),
    /// tokenizer.json or else vocab.txt (with tokenizer_config.json when present), and the
    /// sentence-transformers files modules.json, 1_Pooling/config.json and
    /// sentence_bert_config.json when present. not_found / io_error for missing or unreadable
    /// files; invalid_argument or corrupt, naming the file, for anything malformed or
    /// unsupported.
    [[nodiscard]] static Result<std::shared_ptr<TransformerEmbedder>> load(
        const std::string& dir, TransformerEmbedderOptions options = {});

    /// "transformer-bert-<layers>x<hidden>-<pooling>[-norm]-len<max>-<hash>", the hash covering
    /// the bytes of the config, the weights and the tokenizer files: another model, or the same
    /// model with other weights, never shares cached vectors.
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override;
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Corpus-blind: no fit().
    [[nodiscard]] bool reads_corpus() const override { return false; }

    /// The token ids the model sees for `text`: [CLS], the word pieces (truncated), [SEP].
    [[nodiscard]] std::vector<std::int32_t> token_ids(std::string_view text) const;
    [[nodiscard]] std::size_t max_length() const;
    /// The instruction-set build of the encoder in use ("avx512", "avx2" or "generic").
    [[nodiscard]] std::string isa() const;

private:
    friend struct detail::TransformerAccess;
    struct Impl;  // tokenizer, weights and settings (src/transformer/transformer_impl.hpp)
    explicit TransformerEmbedder(std::shared_ptr<const Impl> impl);

    std::shared_ptr<const Impl> impl_;
};

/// Lets the core load transformer embedders from settings (make_transformer_embedder, the C
/// ABI's "transformer:DIR"): installs TransformerEmbedder::load with
/// set_transformer_embedder_factory.
SCOUT_API void register_transformer_embedder() noexcept;

}  // namespace scout
