// transformer_loader.cpp: TransformerEmbedder::load, reading a sentence-transformers model
// directory: the files' sizes are bounded, every parser answers with a Status, and the token
// ids the tokenizer can produce are checked against the embedding table before any is used.
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "transformer/tokenizer_files.hpp"
#include "transformer/transformer_impl.hpp"
#include "util/file_io.hpp"
#include "util/hash.hpp"

namespace scout {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uintmax_t kMaxJsonBytes = 64ULL << 20;
constexpr std::uintmax_t kMaxWeightsBytes = 8ULL << 30;

/// The whole file, or not_found / io_error / invalid_argument (larger than `limit`).
Result<std::string> read_file(const fs::path& path, std::uintmax_t limit) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > limit) {
        return Status{Errc::invalid_argument,
                      path.string() + ": larger than " + std::to_string(limit >> 20) + " MB"};
    }
    // Bounded again while reading: a file that grows after the size check stops at the limit.
    auto bytes = detail::read_text_file(path, static_cast<std::size_t>(limit));
    if (!bytes && bytes.status().code() == Errc::not_found) {
        return Status{Errc::not_found, path.string() + ": no such file"};
    }
    return bytes;
}

/// An optional file: empty when absent.
Result<std::string> read_optional(const fs::path& path, std::uintmax_t limit) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return std::string();
    }
    return read_file(path, limit);
}

Status with_file(const fs::path& path, const Status& s) {
    return {s.code(), path.filename().string() + ": " + s.message()};
}

/// A fast content hash (64-bit words, then splitmix), for model ids.
std::uint64_t content_hash(std::string_view bytes, std::uint64_t h) {
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, bytes.data() + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    return detail::mix64(detail::fnv1a(bytes.substr(i), h ^ bytes.size()));
}

struct SentenceConfig {
    TransformerPooling pooling = TransformerPooling::mean;
    bool normalize = false;
    std::size_t max_seq_length = 0;
    std::string bytes;  ///< the files read, for the model id
};

Result<TransformerPooling> read_pooling(const fs::path& path, std::string& bytes) {
    auto text = read_file(path, kMaxJsonBytes);
    if (!text) {
        return text.status();
    }
    bytes += *text;
    json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return Status{Errc::invalid_argument, path.string() + ": not a JSON object"};
    }
    if (auto mode = doc.find("pooling_mode"); mode != doc.end() && mode->is_string()) {
        if (*mode == "mean") {
            return TransformerPooling::mean;
        }
        if (*mode == "cls") {
            return TransformerPooling::cls;
        }
        return Status{Errc::invalid_argument,
                      path.string() + ": unsupported pooling_mode (mean or cls)"};
    }
    auto flag = [&](const char* key) {
        auto it = doc.find(key);
        return it != doc.end() && it->is_boolean() && it->get<bool>();
    };
    const bool mean = flag("pooling_mode_mean_tokens");
    const bool cls = flag("pooling_mode_cls_token");
    const bool other = flag("pooling_mode_max_tokens") ||
                       flag("pooling_mode_mean_sqrt_len_tokens") ||
                       flag("pooling_mode_weightedmean_tokens") || flag("pooling_mode_lasttoken");
    if (mean == cls || other) {
        return Status{Errc::invalid_argument,
                      path.string() + ": exactly one of mean or CLS pooling is supported"};
    }
    return cls ? TransformerPooling::cls : TransformerPooling::mean;
}

/// modules.json, the pooling config and sentence_bert_config.json, all optional.
Result<SentenceConfig> read_sentence_config(const fs::path& dir) {
    SentenceConfig out;
    auto modules = read_optional(dir / "modules.json", kMaxJsonBytes);
    if (!modules) {
        return modules.status();
    }
    fs::path pooling_dir = dir / "1_Pooling";
    if (!modules->empty()) {
        out.bytes += *modules;
        json doc = json::parse(*modules, nullptr, false);
        if (doc.is_discarded() || !doc.is_array()) {
            return Status{Errc::invalid_argument, "modules.json: not a JSON array"};
        }
        for (const json& m : doc) {
            auto type = m.is_object() ? m.find("type") : m.end();
            if (!m.is_object() || type == m.end() || !type->is_string()) {
                return Status{Errc::invalid_argument, "modules.json: a module without a type"};
            }
            const std::string t = type->get<std::string>();
            const std::string path =
                m.contains("path") && m["path"].is_string() ? m["path"].get<std::string>() : "";
            if (t.ends_with(".Transformer")) {
                continue;
            }
            if (t.ends_with(".Normalize")) {
                out.normalize = true;
            } else if (t.ends_with(".Pooling")) {
                const fs::path rel(path);
                for (const auto& part : rel) {
                    if (part == "..") {
                        return Status{Errc::invalid_argument,
                                      "modules.json: a module path leaves the model directory"};
                    }
                }
                if (rel.is_absolute() || path.empty()) {
                    return Status{Errc::invalid_argument,
                                  "modules.json: the Pooling module needs a relative path"};
                }
                pooling_dir = dir / rel;
            } else {
                return Status{Errc::invalid_argument,
                              "modules.json: unsupported module '" + t.substr(0, 80) +
                                  "' (Transformer, Pooling and Normalize only)"};
            }
        }
    }
    std::error_code ec;
    if (fs::exists(pooling_dir / "config.json", ec)) {
        auto pooling = read_pooling(pooling_dir / "config.json", out.bytes);
        if (!pooling) {
            return pooling.status();
        }
        out.pooling = *pooling;
    }
    auto sbert = read_optional(dir / "sentence_bert_config.json", kMaxJsonBytes);
    if (!sbert) {
        return sbert.status();
    }
    if (!sbert->empty()) {
        json doc = json::parse(*sbert, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) {
            return Status{Errc::invalid_argument, "sentence_bert_config.json: not a JSON object"};
        }
        if (auto it = doc.find("max_seq_length"); it != doc.end() && it->is_number_unsigned()) {
            out.max_seq_length = static_cast<std::size_t>(
                std::min<std::uint64_t>(it->get<std::uint64_t>(), 1U << 20));
        }
    }
    return out;
}

/// tokenizer.json, else vocab.txt with tokenizer_config.json. `model_length` receives the
/// tokenizer's own max length (0 if none).
Result<detail::bert::TokenizerSpec> read_tokenizer(const fs::path& dir,
                                                   std::string& bytes,
                                                   std::size_t& model_length) {
    std::error_code ec;
    if (fs::exists(dir / "tokenizer.json", ec)) {
        auto text = read_file(dir / "tokenizer.json", kMaxJsonBytes);
        if (!text) {
            return text.status();
        }
        bytes += *text;
        auto spec = detail::bert::parse_tokenizer_json(*text);
        if (spec) {
            model_length = spec->truncation;
        }
        return spec;
    }
    auto vocab = read_file(dir / "vocab.txt", kMaxJsonBytes);
    if (!vocab) {
        return Status{vocab.status().code(),
                      dir.string() + ": neither tokenizer.json nor vocab.txt is readable (" +
                          vocab.status().message() + ")"};
    }
    auto config_text = read_optional(dir / "tokenizer_config.json", kMaxJsonBytes);
    if (!config_text) {
        return config_text.status();
    }
    auto settings = detail::bert::parse_tokenizer_config(*config_text);
    if (!settings) {
        return settings.status();
    }
    bytes += *vocab;
    bytes += *config_text;
    model_length = settings->model_max_length;
    return detail::bert::parse_vocab_txt(*vocab, *settings);
}

std::string pooling_name(TransformerPooling p) {
    return p == TransformerPooling::cls ? "cls" : "mean";
}

Result<std::shared_ptr<TransformerEmbedder>> load_dir(const fs::path& dir,
                                                      const TransformerEmbedderOptions& options) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return Status{Errc::not_found, dir.string() + ": not a model directory"};
    }
    auto config_text = read_file(dir / "config.json", kMaxJsonBytes);
    if (!config_text) {
        return config_text.status();
    }
    auto config = detail::bert::parse_bert_config(*config_text);
    if (!config) {
        return config.status();
    }
    auto weights_bytes = read_file(dir / "model.safetensors", kMaxWeightsBytes);
    if (!weights_bytes) {
        return Status{weights_bytes.status().code(),
                      weights_bytes.status().message() + " (only the safetensors format is read)"};
    }
    auto tensors = detail::bert::parse_safetensors(*weights_bytes);
    if (!tensors) {
        return with_file("model.safetensors", tensors.status());
    }
    const detail::bert::EncoderKernels& kernels = detail::bert::encoder_kernels();
    auto model =
        detail::bert::BertModel::from_safetensors(*tensors, *config, kernels.panel_rows > 0);
    if (!model) {
        return with_file("model.safetensors", model.status());
    }
    std::string tokenizer_bytes;
    std::size_t tokenizer_length = 0;
    auto spec = read_tokenizer(dir, tokenizer_bytes, tokenizer_length);
    if (!spec) {
        return spec.status();
    }
    auto tokenizer =
        std::make_shared<const detail::bert::WordPieceTokenizer>(std::move(spec.value()));
    if (static_cast<std::size_t>(tokenizer->max_id()) >= config->vocab_size) {
        return Status{Errc::invalid_argument,
                      "the tokenizer has id " + std::to_string(tokenizer->max_id()) +
                          ", the model's vocabulary only " + std::to_string(config->vocab_size)};
    }
    auto sentence = read_sentence_config(dir);
    if (!sentence) {
        return sentence.status();
    }

    auto impl = std::make_shared<detail::TransformerAccess::Impl>();
    impl->model = std::move(model.value());
    impl->tokenizer = std::move(tokenizer);
    impl->kernels = &kernels;
    impl->pooling =
        options.pooling == TransformerPooling::from_model ? sentence->pooling : options.pooling;
    impl->normalize = options.normalize.value_or(sentence->normalize);
    std::size_t length = options.max_length;
    for (std::size_t candidate :
         {sentence->max_seq_length, tokenizer_length, config->max_positions}) {
        if (length == 0) {
            length = candidate;
        }
    }
    impl->max_length = std::min(length, config->max_positions);
    if (impl->max_length <= impl->tokenizer->special_count()) {
        return Status{Errc::invalid_argument,
                      "max length " + std::to_string(impl->max_length) +
                          " leaves no room for text beside the special tokens"};
    }
    impl->threads = std::max<std::size_t>(options.threads, 1);
    impl->batch_tokens = std::max<std::size_t>(options.batch_tokens, 1);
    std::uint64_t h = content_hash(*config_text, 1);
    h = content_hash(*weights_bytes, h);
    h = content_hash(tokenizer_bytes, h);
    h = content_hash(sentence->bytes, h);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    impl->model_id = "transformer-bert-" + std::to_string(config->layers) + "x" +
                     std::to_string(config->hidden) + "-" + pooling_name(impl->pooling) +
                     (impl->normalize ? "-norm" : "") + "-len" + std::to_string(impl->max_length) +
                     "-" + hex;
    return detail::TransformerAccess::make(std::move(impl));
}

}  // namespace

Result<std::shared_ptr<TransformerEmbedder>> TransformerEmbedder::load(
    const std::string& dir, TransformerEmbedderOptions options) {
    try {
        return load_dir(fs::path(dir), options);
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, dir + ": out of memory while loading the model"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, dir + ": " + e.what()};
    }
}

}  // namespace scout
