// compound_expander.hpp: compound words written apart or together. Tool catalogs glue words
// into names and products ("keyvault", "cosmosdb", "filesystem", "webhook") that queries write
// as two words, and the other way round. Against the catalog's own vocabulary, a query's
// adjacent words that form a catalog word add that word, and a query word the catalog lacks
// adds its two catalog-known halves.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scout::detail {

inline constexpr std::size_t kMinPart = 2;
inline constexpr std::size_t kMaxCompoundBytes = 40;  ///< longer words are left alone (cost bound)

/// Phrases to add to a query, given its words (lowercase, unstemmed, in order) and a test for
/// "the catalog knows this word". Joins come first, then splits; each phrase once, none that is
/// already a query word. A split needs halves of at least kMinPart bytes; among the valid
/// splits, the most balanced wins, and of equally balanced ones the longer first half.
[[nodiscard]] std::vector<std::string> compound_expansions(
    std::span<const std::string> words, const std::function<bool(const std::string&)>& known);

/// The phrases of compound_expansions, kept between calls so that a search allocates nothing.
class CompoundPhrases {
public:
    /// compound_expansions(words, known) into this, with known(std::string_view).
    template <class Word, class Known>
    void find(std::span<const Word> words, Known&& known);

    [[nodiscard]] std::size_t size() const noexcept { return spans_.size(); }
    [[nodiscard]] std::string_view operator[](std::size_t i) const noexcept {
        return std::string_view(bytes_).substr(spans_[i].first, spans_[i].second);
    }

private:
    template <class Word>
    void add(std::span<const Word> words, std::string_view phrase);

    std::string bytes_;
    std::vector<std::pair<std::size_t, std::size_t>> spans_;  // (offset, size) in bytes_
    std::string candidate_;
};

namespace compound_detail {
inline bool is_letters(std::string_view w) noexcept {
    return !w.empty() &&
           std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}
}  // namespace compound_detail

template <class Word>
void CompoundPhrases::add(std::span<const Word> words, std::string_view phrase) {
    for (const Word& w : words) {
        if (std::string_view(w) == phrase) {
            return;
        }
    }
    for (std::size_t i = 0; i < size(); ++i) {
        if ((*this)[i] == phrase) {
            return;
        }
    }
    spans_.emplace_back(bytes_.size(), phrase.size());
    bytes_.append(phrase);
}

template <class Word, class Known>
void CompoundPhrases::find(std::span<const Word> words, Known&& known) {
    using compound_detail::is_letters;
    bytes_.clear();
    spans_.clear();
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        const std::string_view a(words[i]);
        const std::string_view b(words[i + 1]);
        if (is_letters(a) && is_letters(b) && a.size() + b.size() <= kMaxCompoundBytes) {
            candidate_.assign(a).append(b);
            if (known(std::string_view(candidate_))) {
                add(words, candidate_);
            }
        }
    }
    for (const Word& word : words) {
        const std::string_view w(word);
        if (!is_letters(w) || w.size() < 2 * kMinPart || w.size() > kMaxCompoundBytes || known(w)) {
            continue;
        }
        std::size_t best = 0;
        std::size_t best_balance = 0;
        for (std::size_t cut = kMinPart; cut + kMinPart <= w.size(); ++cut) {
            const std::size_t balance = std::min(cut, w.size() - cut);
            if (balance >= best_balance && known(w.substr(0, cut)) && known(w.substr(cut))) {
                best = cut;
                best_balance = balance;
            }
        }
        if (best != 0) {
            candidate_.assign(w.substr(0, best)).append(" ").append(w.substr(best));
            add(words, candidate_);
        }
    }
}

}  // namespace scout::detail
