// bert_config.hpp: the architecture of a BERT encoder as Hugging Face's config.json gives it,
// parsed with bounds on every size so a hostile file cannot ask for absurd allocations.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "scout/status.hpp"

namespace scout::detail::bert {

enum class Activation : unsigned char { gelu, gelu_tanh, relu };

struct BertConfig {
    std::size_t vocab_size = 0;
    std::size_t hidden = 0;
    std::size_t layers = 0;
    std::size_t heads = 0;
    std::size_t intermediate = 0;
    std::size_t max_positions = 0;
    std::size_t type_vocab = 2;
    double layer_norm_eps = 1e-12;
    Activation activation = Activation::gelu;
};

/// config.json of model_type "bert" (or none given) with absolute positions. invalid_argument
/// on malformed JSON, a missing or out-of-range size, heads not dividing hidden, or an
/// unsupported activation / position type.
[[nodiscard]] Result<BertConfig> parse_bert_config(std::string_view json);

}  // namespace scout::detail::bert
