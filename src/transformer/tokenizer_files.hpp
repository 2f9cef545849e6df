// tokenizer_files.hpp: parsers of a BERT tokenizer's files, from bytes: Hugging Face's
// tokenizer.json, or a WordPiece vocab.txt with the settings of tokenizer_config.json. Every
// parser is bounds-checked and answers hostile input with a Status, never a crash.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "scout/status.hpp"

#include "transformer/wordpiece_tokenizer.hpp"

namespace scout::detail::bert {

/// Largest vocabulary accepted (ids are int32; real BERT vocabularies hold 30k-250k tokens).
inline constexpr std::size_t kMaxVocabulary = std::size_t{1} << 22;
/// Largest added-token list accepted (BERT's holds 5; a few models add thousands).
inline constexpr std::size_t kMaxAddedTokens = 65536;

/// tokenizer.json with a WordPiece model, BertNormalizer (or none), BertPreTokenizer and a
/// BertProcessing / TemplateProcessing post-processor (or none). invalid_argument otherwise.
[[nodiscard]] Result<TokenizerSpec> parse_tokenizer_json(std::string_view json);

/// The settings a vocab.txt needs from tokenizer_config.json (all optional there).
struct VocabSettings {
    NormalizerOptions normalizer;  ///< do_lower_case, strip_accents, tokenize_chinese_chars
    std::string unk_token = "[UNK]";
    std::string cls_token = "[CLS]";
    std::string sep_token = "[SEP]";
    std::string pad_token = "[PAD]";
    std::string mask_token = "[MASK]";
    std::size_t model_max_length = 0;  ///< 0 when absent or implausibly large
};

/// tokenizer_config.json; an empty view gives the defaults (BERT uncased).
[[nodiscard]] Result<VocabSettings> parse_tokenizer_config(std::string_view json);

/// vocab.txt: one token per line, its id the line number (a repeated token keeps the last).
/// The special tokens that are in the vocabulary are matched in the raw text, as BERT does.
[[nodiscard]] Result<TokenizerSpec> parse_vocab_txt(std::string_view text,
                                                    const VocabSettings& settings);

}  // namespace scout::detail::bert
