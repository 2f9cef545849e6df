// wordpiece_tokenizer.hpp: the BERT tokenizer pipeline of Hugging Face's tokenizers library:
// added (special) tokens are split out of the raw text, the rest is normalized, split on
// whitespace and punctuation, and each word is cut into WordPieces greedily, longest match
// first, continuation pieces carrying a prefix ("##"). Then truncation and [CLS] ... [SEP].
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "transformer/bert_normalizer.hpp"

namespace scout::detail::bert {

/// A token matched in the text before normalization (e.g. "[MASK]"), as tokenizer.json's
/// added_tokens describe it.
struct AddedToken {
    std::string content;
    std::int32_t id = 0;
    bool lstrip = false;       ///< also swallows whitespace on its left
    bool rstrip = false;       ///< and on its right
    bool single_word = false;  ///< only where it is not inside a word
    bool normalized = false;   ///< matched in the normalized text instead of the raw one
};

struct TokenizerSpec {
    std::unordered_map<std::string, std::int32_t> vocab;
    std::string unk_token = "[UNK]";
    std::string continuing_prefix = "##";
    std::size_t max_input_chars_per_word = 100;
    bool normalize = true;  ///< false when the tokenizer has no normalizer
    NormalizerOptions normalizer;
    std::vector<AddedToken> added;
    std::vector<std::int32_t> prefix_ids;  ///< e.g. [CLS]
    std::vector<std::int32_t> suffix_ids;  ///< e.g. [SEP]
    std::size_t truncation = 0;  ///< the tokenizer's own max length with specials (0: none)
};

/// Immutable after construction; encode() is thread-safe.
class WordPieceTokenizer {
public:
    /// `spec.unk_token` must be in `spec.vocab` (the loaders check).
    explicit WordPieceTokenizer(TokenizerSpec spec);

    /// Token ids with the special prefix and suffix, the word pieces truncated so that the whole
    /// is at most `max_length` ids (0: no limit). Any bytes are accepted.
    [[nodiscard]] std::vector<std::int32_t> encode(std::string_view text,
                                                   std::size_t max_length) const;

    /// Largest id encode() can return.
    [[nodiscard]] std::int32_t max_id() const noexcept { return max_id_; }
    [[nodiscard]] std::size_t special_count() const noexcept {
        return spec_.prefix_ids.size() + spec_.suffix_ids.size();
    }
    [[nodiscard]] const TokenizerSpec& spec() const noexcept { return spec_; }

private:
    struct Piece {
        std::u32string text;
        std::int32_t added_id = -1;  ///< >= 0: an added token, already resolved
    };
    [[nodiscard]] std::vector<Piece> split_added(std::u32string text, bool normalized) const;
    void encode_words(std::u32string_view normalized, std::vector<std::int32_t>& out) const;
    void encode_word(std::u32string_view word, std::vector<std::int32_t>& out) const;
    [[nodiscard]] const std::int32_t* find(std::string_view piece) const;

    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    TokenizerSpec spec_;
    std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> lookup_;
    std::vector<std::u32string> raw_added_;  ///< decoded contents, parallel to spec_.added
    std::vector<std::u32string>
        normalized_added_;  ///< normalized contents, parallel to spec_.added
    /// Added tokens by first code point, one map for raw and one for normalized matching.
    std::unordered_map<char32_t, std::vector<std::size_t>> raw_first_;
    std::unordered_map<char32_t, std::vector<std::size_t>> normalized_first_;
    std::int32_t unk_id_ = 0;
    std::int32_t max_id_ = 0;
};

}  // namespace scout::detail::bert
