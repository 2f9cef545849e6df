// word_pairs.hpp: adjacent word pairs as index terms. A query whose words come in the order a
// tool's name or description uses them ("speech to text", "import error details") matches
// that tool's pairs, which word-by-word BM25 cannot tell from the reverse ("text to speech")
// or from the words scattered apart.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scout::detail {

/// Appends one term per pair of neighbouring words of `text`, after identifier splitting,
/// lowercasing, stop-word removal and Porter stemming ("Convert speech to text" ->
/// "convert speech", "speech text"). Terms start with a control byte, so they never equal an
/// analyzed word. Words longer than kPlainWordBytes (64) are cut, as the analyzer cuts them.
void append_word_pairs(std::string_view text, std::vector<std::string>& out);

/// The words of `text` as the pairs and the action read them: identifier splitting and
/// lowercasing, words cut at kPlainWordBytes; stop words kept, nothing stemmed.
[[nodiscard]] std::vector<std::string> plain_words(std::string_view text);

/// append_word_pairs from the text's plain_words, for a caller that has them already.
void append_word_pairs_of(const std::vector<std::string>& plain, std::vector<std::string>& out);

}  // namespace scout::detail
