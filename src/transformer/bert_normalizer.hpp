// bert_normalizer.hpp: BERT's text normalization (clean text, space around CJK ideographs,
// accent stripping, lowercasing) and the character classes of its pre-tokenizer, as Hugging
// Face's BertNormalizer and BertPreTokenizer define them. Works on decoded code points.
#pragma once

#include <string>
#include <string_view>

namespace scout::detail::bert {

struct NormalizerOptions {
    bool clean_text = true;            ///< drop control characters and U+FFFD; whitespace -> ' '
    bool handle_chinese_chars = true;  ///< put spaces around CJK ideographs
    bool strip_accents = true;         ///< NFD, then drop nonspacing marks (Mn)
    bool lowercase = true;
};

/// Decodes UTF-8; each maximal ill-formed subpart becomes U+FFFD (as WHATWG decoders do).
[[nodiscard]] std::u32string decode_utf8(std::string_view text);

[[nodiscard]] bool is_bert_whitespace(char32_t c) noexcept;   ///< \t \n \r and White_Space
[[nodiscard]] bool is_bert_control(char32_t c) noexcept;      ///< Cc, Cf, Co except \t \n \r
[[nodiscard]] bool is_bert_punctuation(char32_t c) noexcept;  ///< ASCII symbols and P*
[[nodiscard]] bool is_chinese_char(char32_t c) noexcept;      ///< the CJK ideograph blocks

/// The normalizer's output for `text`, in the order Hugging Face applies the steps.
[[nodiscard]] std::u32string normalize(std::u32string_view text, const NormalizerOptions& options);

}  // namespace scout::detail::bert
