// bert_model.cpp: see bert_model.hpp.
#include "transformer/bert_model.hpp"

#include <string>

#include "util/split_mix.hpp"

namespace scout::detail::bert {
namespace {

using Shape = std::vector<std::size_t>;

/// Reads tensors by name under one prefix, remembering the first error.
class TensorReader {
public:
    TensorReader(const SafeTensors& file, std::string prefix)
        : file_(file), prefix_(std::move(prefix)) {}

    std::vector<float> get(const std::string& name, const Shape& shape) {
        if (!status_.ok()) {
            return {};
        }
        auto values = file_.floats(prefix_ + name, shape);
        if (!values) {
            status_ = values.status();
            return {};
        }
        return std::move(values.value());
    }
    /// LayerNorm parameters are "weight"/"bias" in current checkpoints, "gamma"/"beta" in old ones.
    void layer_norm(const std::string& base,
                    std::size_t h,
                    std::vector<float>& g,
                    std::vector<float>& b) {
        const bool old = file_.tensors.count(prefix_ + base + ".gamma") != 0;
        g = get(base + (old ? ".gamma" : ".weight"), {h});
        b = get(base + (old ? ".beta" : ".bias"), {h});
    }
    [[nodiscard]] const Status& status() const { return status_; }

private:
    const SafeTensors& file_;
    std::string prefix_;
    Status status_;
};

void append_tensor(std::vector<float>& to, const std::vector<float>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

/// w[out, in] row-major to panels of kPanelWidth output columns (see encoder_kernels.hpp).
std::vector<float> to_panels(const std::vector<float>& w, std::size_t out, std::size_t in) {
    const std::size_t panels = (out + kPanelWidth - 1) / kPanelWidth;
    std::vector<float> p(panels * in * kPanelWidth, 0.0f);
    for (std::size_t o = 0; o < out; ++o) {
        for (std::size_t k = 0; k < in; ++k) {
            p[((o / kPanelWidth) * in + k) * kPanelWidth + o % kPanelWidth] = w[o * in + k];
        }
    }
    return p;
}

}  // namespace

Result<std::shared_ptr<const BertModel>> BertModel::from_safetensors(const SafeTensors& file,
                                                                     const BertConfig& c,
                                                                     bool panels) {
    const std::string anchor = "embeddings.word_embeddings.weight";
    std::string prefix;
    bool found = false;
    for (const auto& [name, info] : file.tensors) {
        if (name.size() >= anchor.size() &&
            name.compare(name.size() - anchor.size(), anchor.size(), anchor) == 0) {
            prefix = name.substr(0, name.size() - anchor.size());
            found = true;
            break;
        }
    }
    if (!found) {
        return Status{Errc::invalid_argument,
                      "safetensors: no tensor named *" + anchor + " (not a BERT checkpoint?)"};
    }
    auto model = std::make_shared<BertModel>();
    model->config_ = c;
    const std::size_t h = c.hidden;
    TensorReader r(file, prefix);
    model->word_ = r.get("embeddings.word_embeddings.weight", {c.vocab_size, h});
    model->position_ = r.get("embeddings.position_embeddings.weight", {c.max_positions, h});
    model->token_type_ = r.get("embeddings.token_type_embeddings.weight", {c.type_vocab, h});
    r.layer_norm("embeddings.LayerNorm", h, model->emb_ln_g_, model->emb_ln_b_);
    for (std::size_t i = 0; i < c.layers && r.status().ok(); ++i) {
        const std::string p = "encoder.layer." + std::to_string(i) + ".";
        Layer L;
        for (const char* part : {"query", "key", "value"}) {
            append_tensor(L.qkv_w, r.get(p + "attention.self." + part + ".weight", {h, h}));
            append_tensor(L.qkv_b, r.get(p + "attention.self." + part + ".bias", {h}));
        }
        L.out_w = r.get(p + "attention.output.dense.weight", {h, h});
        L.out_b = r.get(p + "attention.output.dense.bias", {h});
        r.layer_norm(p + "attention.output.LayerNorm", h, L.ln1_g, L.ln1_b);
        L.ffn1_w = r.get(p + "intermediate.dense.weight", {c.intermediate, h});
        L.ffn1_b = r.get(p + "intermediate.dense.bias", {c.intermediate});
        L.ffn2_w = r.get(p + "output.dense.weight", {h, c.intermediate});
        L.ffn2_b = r.get(p + "output.dense.bias", {h});
        r.layer_norm(p + "output.LayerNorm", h, L.ln2_g, L.ln2_b);
        model->layers_.push_back(std::move(L));
    }
    if (!r.status().ok()) {
        return r.status();
    }
    if (panels) {
        model->make_panels();
    }
    model->make_view();
    return std::shared_ptr<const BertModel>(std::move(model));
}

std::shared_ptr<const BertModel> BertModel::random(const BertConfig& c,
                                                   std::uint64_t seed,
                                                   bool panels,
                                                   float scale) {
    auto model = std::make_shared<BertModel>();
    model->config_ = c;
    SplitMix64 rng(seed);
    auto fill = [&](std::size_t n) {
        std::vector<float> v(n);
        for (float& x : v) {
            x = scale *
                (2.0f * static_cast<float>(rng.next() >> 40) / static_cast<float>(1ULL << 24) -
                 1.0f);
        }
        return v;
    };
    const std::size_t h = c.hidden;
    model->word_ = fill(c.vocab_size * h);
    model->position_ = fill(c.max_positions * h);
    model->token_type_ = fill(c.type_vocab * h);
    model->emb_ln_g_.assign(h, 1.0f);
    model->emb_ln_b_ = fill(h);
    for (std::size_t i = 0; i < c.layers; ++i) {
        Layer L{fill(3 * h * h),
                fill(3 * h),
                fill(h * h),
                fill(h),
                std::vector<float>(h, 1.0f),
                fill(h),
                fill(c.intermediate * h),
                fill(c.intermediate),
                fill(h * c.intermediate),
                fill(h),
                std::vector<float>(h, 1.0f),
                fill(h),
                {},
                {},
                {},
                {}};
        model->layers_.push_back(std::move(L));
    }
    if (panels) {
        model->make_panels();
    }
    model->make_view();
    return model;
}

void BertModel::make_panels() {
    const std::size_t h = config_.hidden;
    for (Layer& L : layers_) {
        L.qkv_p = to_panels(L.qkv_w, 3 * h, h);
        L.out_p = to_panels(L.out_w, h, h);
        L.ffn1_p = to_panels(L.ffn1_w, config_.intermediate, h);
        L.ffn2_p = to_panels(L.ffn2_w, h, config_.intermediate);
    }
}

void BertModel::make_view() {
    layer_views_.clear();
    auto panel = [](const std::vector<float>& p) { return p.empty() ? nullptr : p.data(); };
    for (const Layer& L : layers_) {
        layer_views_.push_back({L.qkv_w.data(),
                                L.qkv_b.data(),
                                L.out_w.data(),
                                L.out_b.data(),
                                L.ln1_g.data(),
                                L.ln1_b.data(),
                                L.ffn1_w.data(),
                                L.ffn1_b.data(),
                                L.ffn2_w.data(),
                                L.ffn2_b.data(),
                                L.ln2_g.data(),
                                L.ln2_b.data(),
                                panel(L.qkv_p),
                                panel(L.out_p),
                                panel(L.ffn1_p),
                                panel(L.ffn2_p)});
    }
    view_.hidden = config_.hidden;
    view_.heads = config_.heads;
    view_.intermediate = config_.intermediate;
    view_.layers = config_.layers;
    view_.eps = static_cast<float>(config_.layer_norm_eps);
    view_.activation = config_.activation;
    view_.word = word_.data();
    view_.position = position_.data();
    view_.token_type = token_type_.data();
    view_.emb_ln_g = emb_ln_g_.data();
    view_.emb_ln_b = emb_ln_b_.data();
    view_.layer = layer_views_.data();
}

}  // namespace scout::detail::bert
