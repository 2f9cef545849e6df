// bert_config.cpp: see bert_config.hpp.
#include "transformer/bert_config.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

namespace scout::detail::bert {
namespace {

using nlohmann::json;

Status bad_config(const std::string& what) {
    return {Errc::invalid_argument, "config.json: " + what};
}

/// Reads a required size in [1, limit].
Status read_config_size(
    const json& root, const char* key, std::size_t limit, std::size_t& out, bool required = true) {
    auto it = root.find(key);
    if (it == root.end() || it->is_null()) {
        return required ? bad_config(std::string("missing ") + key) : Status{};
    }
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0 ||
        it->get<std::uint64_t>() > limit) {
        return bad_config(std::string(key) + " must be an integer in [1, " + std::to_string(limit) +
                          "]");
    }
    out = static_cast<std::size_t>(it->get<std::uint64_t>());
    return {};
}

}  // namespace

Result<BertConfig> parse_bert_config(std::string_view text) {
    json root = json::parse(text.begin(), text.end(), nullptr, false);
    if (root.is_discarded() || !root.is_object()) {
        return bad_config("not a JSON object");
    }
    auto type = root.find("model_type");
    if (type != root.end() && !(type->is_string() && type->get<std::string>() == "bert")) {
        return bad_config("model_type must be \"bert\" (BERT-family encoders only)");
    }
    BertConfig c;
    const Status checks[] = {
        read_config_size(root, "vocab_size", 1U << 22, c.vocab_size),
        read_config_size(root, "hidden_size", 8192, c.hidden),
        read_config_size(root, "num_hidden_layers", 128, c.layers),
        read_config_size(root, "num_attention_heads", 256, c.heads),
        read_config_size(root, "intermediate_size", 65536, c.intermediate),
        read_config_size(root, "max_position_embeddings", 65536, c.max_positions),
        read_config_size(root, "type_vocab_size", 1024, c.type_vocab, false),
    };
    for (const Status& s : checks) {
        if (!s.ok()) {
            return s;
        }
    }
    if (c.hidden % c.heads != 0) {
        return bad_config("hidden_size is not a multiple of num_attention_heads");
    }
    auto eps = root.find("layer_norm_eps");
    if (eps != root.end()) {
        if (!eps->is_number() || !std::isfinite(eps->get<double>()) || eps->get<double>() <= 0 ||
            eps->get<double>() > 1) {
            return bad_config("layer_norm_eps must be a number in (0, 1]");
        }
        c.layer_norm_eps = eps->get<double>();
    }
    auto act = root.find("hidden_act");
    if (act != root.end()) {
        const std::string name = act->is_string() ? act->get<std::string>() : std::string();
        if (name == "gelu") {
            c.activation = Activation::gelu;
        } else if (name == "gelu_new" || name == "gelu_pytorch_tanh") {
            c.activation = Activation::gelu_tanh;
        } else if (name == "relu") {
            c.activation = Activation::relu;
        } else {
            return bad_config("unsupported hidden_act (gelu, gelu_new, gelu_pytorch_tanh or relu)");
        }
    }
    auto pos = root.find("position_embedding_type");
    if (pos != root.end() && !(pos->is_string() && pos->get<std::string>() == "absolute")) {
        return bad_config("only absolute position embeddings are supported");
    }
    return c;
}

}  // namespace scout::detail::bert
