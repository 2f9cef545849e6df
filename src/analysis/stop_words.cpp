// stop_words.cpp: a short English stop list. Kept small on purpose: tool queries are short and
// words like "list", "get" or "all" carry intent, so only function words are dropped.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "analysis/analyzer.hpp"

namespace scout::detail {
namespace {
// Sorted, so lookup is a binary search.
constexpr std::array<std::string_view, 72> kStopWords{
    "a",     "about", "an",     "and",   "are",    "as",    "at",   "be",    "been",
    "but",   "by",    "can",    "could", "do",     "does",  "for",  "from",  "had",
    "has",   "have",  "he",     "her",   "him",    "his",   "how",  "i",     "if",
    "in",    "into",  "is",     "it",    "its",    "me",    "my",   "of",    "on",
    "or",    "our",   "please", "she",   "should", "so",    "some", "than",  "that",
    "the",   "their", "them",   "then",  "there",  "these", "they", "this",  "those",
    "to",    "us",    "was",    "we",    "were",   "what",  "when", "where", "which",
    "while", "who",   "will",   "with",  "would",  "you",   "your", "yours", "yourself",
};

constexpr std::size_t kLongestStopWord = 8;  // "yourself"

/// Where the stop words of each first letter start in kStopWords (27 bounds for 'a'..'z'):
/// a lookup searches its letter's few words only, as every token of every text is looked up.
constexpr std::array<std::uint8_t, 27> kLetterStart = [] {
    std::array<std::uint8_t, 27> start{};
    std::size_t w = 0;
    for (std::size_t letter = 0; letter < 26; ++letter) {
        start[letter] = static_cast<std::uint8_t>(w);
        while (w < kStopWords.size() && kStopWords[w][0] == static_cast<char>('a' + letter)) {
            ++w;
        }
    }
    start[26] = static_cast<std::uint8_t>(w);
    return start;
}();
static_assert(kLetterStart[26] == kStopWords.size(), "every stop word starts with a-z, sorted");
static_assert(std::all_of(kStopWords.begin(), kStopWords.end(), [](std::string_view w) {
    return w.size() <= kLongestStopWord;
}));

}  // namespace

bool is_stop_word(std::string_view word) noexcept {
    if (word.empty() || word.size() > kLongestStopWord || word[0] < 'a' || word[0] > 'z') {
        return false;
    }
    const std::size_t letter = static_cast<std::size_t>(word[0] - 'a');
    const auto* begin = kStopWords.begin() + kLetterStart[letter];
    const auto* end = kStopWords.begin() + kLetterStart[letter + 1];
    return std::binary_search(begin, end, word);
}

}  // namespace scout::detail
