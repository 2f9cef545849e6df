// tokenizer_files.cpp: see tokenizer_files.hpp. JSON is parsed without exceptions and every
// field is type-checked before use.
#include "transformer/tokenizer_files.hpp"

#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "util/utf8.hpp"

namespace scout::detail::bert {
namespace {

using nlohmann::json;

Status bad_tokenizer(const std::string& what) {
    return {Errc::invalid_argument, what};
}

std::optional<json> parse_json_text(std::string_view text) {
    json doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded()) {
        return std::nullopt;
    }
    return doc;
}

/// A non-negative integer that fits int32, or nullopt.
std::optional<std::int32_t> as_id(const json& v) {
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() <=
            static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
        return static_cast<std::int32_t>(v.get<std::uint64_t>());
    }
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
        v.get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max()) {
        return static_cast<std::int32_t>(v.get<std::int64_t>());
    }
    return std::nullopt;
}

/// Reads an optional boolean field; false if present with another type.
bool read_bool(const json& obj, const char* key, bool& out) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        return true;
    }
    if (!it->is_boolean()) {
        return false;
    }
    out = it->get<bool>();
    return true;
}

bool read_tokenizer_size(const json& obj, const char* key, std::size_t& out) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        return true;
    }
    if (!it->is_number_unsigned()) {
        return false;
    }
    out = static_cast<std::size_t>(std::min<std::uint64_t>(
        it->get<std::uint64_t>(), std::numeric_limits<std::uint32_t>::max()));
    return true;
}

bool read_string(const json& obj, const char* key, std::string& out) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        return true;
    }
    if (!it->is_string()) {
        return false;
    }
    out = it->get<std::string>();
    return true;
}

std::string type_of(const json& obj) {
    auto it = obj.find("type");
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Status read_normalizer(const json& root, TokenizerSpec& spec) {
    auto it = root.find("normalizer");
    if (it == root.end() || it->is_null()) {
        spec.normalize = false;
        return {};
    }
    if (!it->is_object() || type_of(*it) != "BertNormalizer") {
        return bad_tokenizer("tokenizer.json: unsupported normalizer (only BertNormalizer)");
    }
    NormalizerOptions& n = spec.normalizer;
    n = NormalizerOptions{};
    if (!read_bool(*it, "clean_text", n.clean_text) ||
        !read_bool(*it, "handle_chinese_chars", n.handle_chinese_chars) ||
        !read_bool(*it, "lowercase", n.lowercase)) {
        return bad_tokenizer("tokenizer.json: a BertNormalizer flag is not a boolean");
    }
    n.strip_accents = n.lowercase;  // strip_accents: null follows lowercase
    if (!read_bool(*it, "strip_accents", n.strip_accents)) {
        return bad_tokenizer("tokenizer.json: strip_accents is not a boolean or null");
    }
    return {};
}

Status read_model(const json& root, TokenizerSpec& spec) {
    auto model = root.find("model");
    if (model == root.end() || !model->is_object()) {
        return bad_tokenizer("tokenizer.json: no model object");
    }
    const std::string type = type_of(*model);
    if (!type.empty() && type != "WordPiece") {
        return bad_tokenizer("tokenizer.json: unsupported model type '" + type +
                             "' (only WordPiece)");
    }
    auto vocab = model->find("vocab");
    if (vocab == model->end() || !vocab->is_object() || vocab->empty()) {
        return bad_tokenizer("tokenizer.json: model.vocab is not a non-empty object");
    }
    if (vocab->size() > kMaxVocabulary) {
        return bad_tokenizer("tokenizer.json: vocabulary larger than " +
                             std::to_string(kMaxVocabulary));
    }
    spec.vocab.reserve(vocab->size());
    for (const auto& item : vocab->items()) {
        const std::string& token = item.key();
        auto id = as_id(item.value());
        if (!id) {
            return bad_tokenizer("tokenizer.json: the id of vocabulary token '" +
                                 token.substr(0, 64) + "' is not a valid id");
        }
        spec.vocab[token] = *id;
    }
    if (!read_string(*model, "unk_token", spec.unk_token) ||
        !read_string(*model, "continuing_subword_prefix", spec.continuing_prefix) ||
        !read_tokenizer_size(*model, "max_input_chars_per_word", spec.max_input_chars_per_word)) {
        return bad_tokenizer("tokenizer.json: a WordPiece setting has the wrong type");
    }
    if (spec.vocab.find(spec.unk_token) == spec.vocab.end()) {
        return bad_tokenizer("tokenizer.json: the unknown token '" + spec.unk_token.substr(0, 64) +
                             "' is not in the vocabulary");
    }
    return {};
}

Status read_added_tokens(const json& root, TokenizerSpec& spec) {
    auto it = root.find("added_tokens");
    if (it == root.end() || it->is_null()) {
        return {};
    }
    if (!it->is_array() || it->size() > kMaxAddedTokens) {
        return bad_tokenizer("tokenizer.json: added_tokens is not an array of at most " +
                             std::to_string(kMaxAddedTokens));
    }
    for (const json& t : *it) {
        if (!t.is_object()) {
            return bad_tokenizer("tokenizer.json: an added token is not an object");
        }
        AddedToken token;
        auto id = t.find("id");
        auto parsed = id == t.end() ? std::nullopt : as_id(*id);
        if (!parsed || !read_string(t, "content", token.content) || token.content.empty() ||
            !read_bool(t, "lstrip", token.lstrip) || !read_bool(t, "rstrip", token.rstrip) ||
            !read_bool(t, "single_word", token.single_word) ||
            !read_bool(t, "normalized", token.normalized)) {
            return bad_tokenizer(
                "tokenizer.json: an added token lacks an id or content, or has a flag of the wrong "
                "type");
        }
        token.id = *parsed;
        spec.added.push_back(std::move(token));
    }
    return {};
}

/// The id of a special token named in the post-processor: from its own entry or the vocabulary.
std::optional<std::int32_t> special_id(const json& entry) {
    if (entry.is_array() && entry.size() == 2 && entry[0].is_string()) {
        return as_id(entry[1]);  // BertProcessing: ["[CLS]", 101]
    }
    return std::nullopt;
}

Status read_template(const json& proc, TokenizerSpec& spec) {
    auto single = proc.find("single");
    auto specials = proc.find("special_tokens");
    if (single == proc.end() || !single->is_array() || specials == proc.end() ||
        !specials->is_object()) {
        return bad_tokenizer("tokenizer.json: TemplateProcessing lacks single or special_tokens");
    }
    bool seen_sequence = false;
    for (const json& piece : *single) {
        if (!piece.is_object() || piece.size() != 1) {
            return bad_tokenizer("tokenizer.json: a template piece is not a one-key object");
        }
        const std::string& kind = piece.begin().key();
        const json& body = piece.begin().value();
        if (!body.is_object()) {
            return bad_tokenizer("tokenizer.json: a template piece has no body");
        }
        auto type_id = body.find("type_id");
        if (type_id != body.end() &&
            !(type_id->is_number_unsigned() && type_id->get<std::uint64_t>() == 0)) {
            return bad_tokenizer(
                "tokenizer.json: template type ids other than 0 are not supported for single "
                "texts");
        }
        if (kind == "Sequence") {
            if (seen_sequence) {
                return bad_tokenizer("tokenizer.json: the single template holds two sequences");
            }
            seen_sequence = true;
            continue;
        }
        auto name = body.find("id");
        if (kind != "SpecialToken" || name == body.end() || !name->is_string()) {
            return bad_tokenizer("tokenizer.json: unknown template piece '" + kind.substr(0, 32) +
                                 "'");
        }
        auto entry = specials->find(name->get<std::string>());
        if (entry == specials->end() || !entry->is_object()) {
            return bad_tokenizer("tokenizer.json: template token '" +
                                 name->get<std::string>().substr(0, 64) + "' is not defined");
        }
        auto ids = entry->find("ids");
        if (ids == entry->end() || !ids->is_array() || ids->size() > 16) {
            return bad_tokenizer("tokenizer.json: special token entry without a small ids array");
        }
        auto& target = seen_sequence ? spec.suffix_ids : spec.prefix_ids;
        for (const json& v : *ids) {
            auto id = as_id(v);
            if (!id) {
                return bad_tokenizer("tokenizer.json: a special token id is not a valid id");
            }
            target.push_back(*id);
        }
    }
    if (!seen_sequence) {
        return bad_tokenizer("tokenizer.json: the single template has no sequence");
    }
    return {};
}

Status read_post_processor(const json& root, TokenizerSpec& spec) {
    auto it = root.find("post_processor");
    if (it == root.end() || it->is_null()) {
        return {};
    }
    if (!it->is_object()) {
        return bad_tokenizer("tokenizer.json: post_processor is not an object");
    }
    const std::string type = type_of(*it);
    if (type == "BertProcessing") {
        auto cls = it->find("cls");
        auto sep = it->find("sep");
        auto cls_id = cls == it->end() ? std::nullopt : special_id(*cls);
        auto sep_id = sep == it->end() ? std::nullopt : special_id(*sep);
        if (!cls_id || !sep_id) {
            return bad_tokenizer("tokenizer.json: BertProcessing needs cls and sep as [token, id]");
        }
        spec.prefix_ids = {*cls_id};
        spec.suffix_ids = {*sep_id};
        return {};
    }
    if (type == "TemplateProcessing") {
        return read_template(*it, spec);
    }
    return bad_tokenizer("tokenizer.json: unsupported post_processor '" + type.substr(0, 32) + "'");
}

}  // namespace

Result<TokenizerSpec> parse_tokenizer_json(std::string_view text) {
    auto doc = parse_json_text(text);
    if (!doc || !doc->is_object()) {
        return bad_tokenizer("tokenizer.json is not a JSON object");
    }
    const json& root = *doc;
    TokenizerSpec spec;
    for (Status s : {read_model(root, spec), read_normalizer(root, spec)}) {
        if (!s.ok()) {
            return s;
        }
    }
    auto pre = root.find("pre_tokenizer");
    if (pre == root.end() || !pre->is_object() || type_of(*pre) != "BertPreTokenizer") {
        return bad_tokenizer("tokenizer.json: unsupported pre_tokenizer (only BertPreTokenizer)");
    }
    for (Status s : {read_added_tokens(root, spec), read_post_processor(root, spec)}) {
        if (!s.ok()) {
            return s;
        }
    }
    auto trunc = root.find("truncation");
    if (trunc != root.end() && trunc->is_object() &&
        !read_tokenizer_size(*trunc, "max_length", spec.truncation)) {
        return bad_tokenizer("tokenizer.json: truncation.max_length is not a number");
    }
    return spec;
}

Result<VocabSettings> parse_tokenizer_config(std::string_view text) {
    VocabSettings s;
    if (text.empty()) {
        return s;
    }
    auto doc = parse_json_text(text);
    if (!doc || !doc->is_object()) {
        return bad_tokenizer("tokenizer_config.json is not a JSON object");
    }
    const json& root = *doc;
    NormalizerOptions& n = s.normalizer;
    if (!read_bool(root, "do_lower_case", n.lowercase) ||
        !read_bool(root, "tokenize_chinese_chars", n.handle_chinese_chars)) {
        return bad_tokenizer(
            "tokenizer_config.json: do_lower_case / tokenize_chinese_chars is not a boolean");
    }
    n.strip_accents = n.lowercase;
    if (!read_bool(root, "strip_accents", n.strip_accents)) {
        return bad_tokenizer("tokenizer_config.json: strip_accents is not a boolean or null");
    }
    for (auto [key, field] : {std::pair{"unk_token", &s.unk_token},
                              std::pair{"cls_token", &s.cls_token},
                              std::pair{"sep_token", &s.sep_token},
                              std::pair{"pad_token", &s.pad_token},
                              std::pair{"mask_token", &s.mask_token}}) {
        if (!read_string(root, key, *field)) {
            return bad_tokenizer(std::string("tokenizer_config.json: ") + key + " is not a string");
        }
    }
    // model_max_length is often a huge sentinel (1e30) meaning "none": a float, or > 1M.
    auto max_len = root.find("model_max_length");
    if (max_len != root.end() && max_len->is_number_unsigned() &&
        max_len->get<std::uint64_t>() <= 1'000'000) {
        s.model_max_length = static_cast<std::size_t>(max_len->get<std::uint64_t>());
    }
    return s;
}

Result<TokenizerSpec> parse_vocab_txt(std::string_view text, const VocabSettings& settings) {
    TokenizerSpec spec;
    spec.normalizer = settings.normalizer;
    spec.unk_token = settings.unk_token;
    std::size_t index = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        if (!detail::is_valid_utf8(text.substr(pos, end - pos))) {
            return bad_tokenizer("vocab.txt: line " + std::to_string(index + 1) +
                                 " is not valid UTF-8");
        }
        std::u32string line = decode_utf8(text.substr(pos, end - pos));
        while (!line.empty() && is_bert_whitespace(line.back())) {
            line.pop_back();
        }
        std::string token;
        for (char32_t c : line) {
            detail::utf8_append(token, c);
        }
        if (index >= kMaxVocabulary) {
            return bad_tokenizer("vocab.txt: more than " + std::to_string(kMaxVocabulary) +
                                 " tokens");
        }
        spec.vocab[token] = static_cast<std::int32_t>(index);
        ++index;
        pos = end + 1;
    }
    if (spec.vocab.find(spec.unk_token) == spec.vocab.end()) {
        return bad_tokenizer("vocab.txt: the unknown token '" + spec.unk_token.substr(0, 64) +
                             "' is not in the vocabulary");
    }
    auto cls = spec.vocab.find(settings.cls_token);
    auto sep = spec.vocab.find(settings.sep_token);
    if (cls == spec.vocab.end() || sep == spec.vocab.end()) {
        return bad_tokenizer("vocab.txt: the [CLS] / [SEP] tokens are not in the vocabulary");
    }
    spec.prefix_ids = {cls->second};
    spec.suffix_ids = {sep->second};
    for (const std::string* name : {&settings.pad_token,
                                    &settings.unk_token,
                                    &settings.cls_token,
                                    &settings.sep_token,
                                    &settings.mask_token}) {
        auto it = spec.vocab.find(*name);
        if (it != spec.vocab.end() && !name->empty()) {
            spec.added.push_back(AddedToken{*name, it->second});
        }
    }
    return spec;
}

}  // namespace scout::detail::bert
