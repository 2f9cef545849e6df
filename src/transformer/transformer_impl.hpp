// transformer_impl.hpp: the state behind TransformerEmbedder, and the forward pass over batches
// of token ids. Internal; tests and benchmarks build it directly (e.g. from random weights).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scout/transformer/transformer_embedder.hpp"

#include "transformer/bert_model.hpp"
#include "transformer/wordpiece_tokenizer.hpp"

namespace scout {

struct [[gnu::visibility("hidden")]] TransformerEmbedder::Impl {
    std::shared_ptr<const detail::bert::BertModel> model;
    std::shared_ptr<const detail::bert::WordPieceTokenizer> tokenizer;  ///< null: embed_ids() only
    const detail::bert::EncoderKernels* kernels = nullptr;
    TransformerPooling pooling = TransformerPooling::mean;  ///< mean or cls, never from_model
    bool normalize = false;
    std::size_t max_length = 512;
    std::size_t threads = 1;
    std::size_t batch_tokens = 4096;
    std::string model_id;

    /// Pooled (and normalized) vectors of token-id sequences, row-major [ids.size(), hidden].
    /// Each sequence must be non-empty, no longer than the position table, its ids < vocab.
    [[nodiscard]] std::vector<float> embed_ids(const std::vector<std::vector<std::int32_t>>& ids)
        const;
};

namespace detail {

/// The way in to a TransformerEmbedder's state, for the loader, tests and benchmarks.
struct TransformerAccess {
    using Impl = TransformerEmbedder::Impl;
    [[nodiscard]] static const Impl& impl(const TransformerEmbedder& e) { return *e.impl_; }
    [[nodiscard]] static std::shared_ptr<TransformerEmbedder> make(
        std::shared_ptr<const Impl> impl) {
        return std::shared_ptr<TransformerEmbedder>(new TransformerEmbedder(std::move(impl)));
    }
};

}  // namespace detail
}  // namespace scout
