// stop_words.cpp: a short English stop list. Kept small on purpose: tool queries are short and
// words like "list", "get" or "all" carry intent, so only function words are dropped.
#include <algorithm>
#include <array>
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
}  // namespace

bool is_stop_word(std::string_view word) noexcept {
    return std::binary_search(kStopWords.begin(), kStopWords.end(), word);
}

}  // namespace scout::detail
