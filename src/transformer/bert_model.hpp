// bert_model.hpp: a BERT encoder's weights, owned, checked against the config, and laid out for
// the encoder kernels (query, key and value projections stacked into one matrix).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scout/status.hpp"

#include "transformer/bert_config.hpp"
#include "transformer/encoder_kernels.hpp"
#include "transformer/safetensors.hpp"

namespace scout::detail::bert {

class BertModel {
public:
    /// Reads the tensors of Hugging Face's BertModel (an optional prefix such as "bert." is
    /// found from the word embeddings' name). invalid_argument naming the tensor when one is
    /// missing, of another shape than the config says, or not floating point.
    /// With `panels`, the projections are also kept in the panel layout of the small-pass
    /// kernel (as much memory again as the encoder layers' weights).
    [[nodiscard]] static Result<std::shared_ptr<const BertModel>> from_safetensors(
        const SafeTensors& file, const BertConfig& config, bool panels);
    /// Weights drawn uniformly from [-scale, scale] (LayerNorm gains 1), for benchmarks.
    [[nodiscard]] static std::shared_ptr<const BertModel> random(const BertConfig& config,
                                                                 std::uint64_t seed,
                                                                 bool panels,
                                                                 float scale = 0.05f);

    [[nodiscard]] const BertConfig& config() const noexcept { return config_; }
    [[nodiscard]] const EncoderView& view() const noexcept { return view_; }

private:
    struct Layer {
        std::vector<float> qkv_w, qkv_b, out_w, out_b, ln1_g, ln1_b, ffn1_w, ffn1_b, ffn2_w, ffn2_b,
            ln2_g, ln2_b;
        std::vector<float> qkv_p, out_p, ffn1_p, ffn2_p;  ///< panel layout, or empty
    };
    void make_panels();
    void make_view();

    BertConfig config_;
    std::vector<float> word_, position_, token_type_, emb_ln_g_, emb_ln_b_;
    std::vector<Layer> layers_;
    std::vector<LayerView> layer_views_;
    EncoderView view_;
};

}  // namespace scout::detail::bert
