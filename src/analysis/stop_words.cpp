// stop_words.cpp: a short English stop list. Kept small on purpose: tool queries are short and
// words like "list", "get" or "all" carry intent, so only function words are dropped.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "analysis/analyzer.hpp"

namespace scout::detail {
namespace {
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

/// A word of at most 8 bytes as one integer: its bytes in order, zero-padded. Words hold no
/// zero byte, so two words pack equal only when they are equal.
constexpr std::uint64_t pack(std::string_view word) noexcept {
    std::uint64_t packed = 0;
    for (std::size_t i = 0; i < word.size(); ++i) {
        packed |= std::uint64_t{static_cast<unsigned char>(word[i])} << (8 * i);
    }
    return packed;
}

constexpr std::size_t kTableBits = 8;  // 256 slots for 72 words: probes stay short

constexpr std::size_t slot_of(std::uint64_t packed) noexcept {
    return static_cast<std::size_t>((packed * 0x9E3779B97F4A7C15ULL) >> (64 - kTableBits));
}

/// The packed stop words in an open-addressing table (0 marks an empty slot): every token of
/// every text is looked up, and a lookup is then one multiply and a probe or two.
constexpr std::array<std::uint64_t, std::size_t{1} << kTableBits> kTable = [] {
    std::array<std::uint64_t, std::size_t{1} << kTableBits> table{};
    for (std::string_view word : kStopWords) {
        std::size_t slot = slot_of(pack(word));
        while (table[slot] != 0) {
            slot = (slot + 1) % table.size();
        }
        table[slot] = pack(word);
    }
    return table;
}();

static_assert(std::all_of(kStopWords.begin(), kStopWords.end(), [](std::string_view w) {
    return !w.empty() && w.size() <= kLongestStopWord;
}));

}  // namespace

bool is_stop_word(std::string_view word) noexcept {
    if (word.empty() || word.size() > kLongestStopWord ||
        word.find('\0') != std::string_view::npos) {  // would pack like a shorter word
        return false;
    }
    const std::uint64_t packed = pack(word);
    for (std::size_t slot = slot_of(packed);; slot = (slot + 1) % kTable.size()) {
        if (kTable[slot] == packed) {
            return true;
        }
        if (kTable[slot] == 0) {
            return false;
        }
    }
}

}  // namespace scout::detail
