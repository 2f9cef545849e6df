// lexicon.hpp: weighted query expansion with groups of interchangeable words and phrases
// (PR <-> pull request, k8s <-> kubernetes, ping <-> send message). Matching is on stemmed
// words, so "pull requests" matches "pull request".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/word_hash.hpp"

namespace scout::detail {

class Lexicon {
public:
    /// `groups`: one string per group, phrases separated by '|'.
    explicit Lexicon(const std::vector<std::string_view>& groups);

    /// Phrases to add to `query`: for every phrase of a group found in the query, the group's
    /// other phrases (each once), in group order. The query's own phrases are not repeated.
    [[nodiscard]] std::vector<std::string> expansions(std::string_view query) const;
    /// The same from the query's words as Analyzer::split_words cuts them (unstemmed), for a
    /// caller that has them already.
    [[nodiscard]] std::vector<std::string> expansions_of_words(
        const std::vector<std::string>& words) const;

    /// The phrases expansions() would return, as phrase indices (phrase_text), from the stems
    /// of the query's words as Analyzer::split_words cuts them; appended to `out`.
    void expansion_phrases(std::span<const std::string_view> stems,
                           std::vector<std::size_t>& out) const;
    [[nodiscard]] std::size_t phrase_count() const noexcept { return phrases_.size(); }
    [[nodiscard]] const std::string& phrase_text(std::size_t phrase) const {
        return phrases_[phrase].text;
    }

    [[nodiscard]] std::size_t group_count() const noexcept { return groups_.size(); }

private:
    [[nodiscard]] std::vector<std::string> expansions_of_stems(
        const std::vector<std::string>& stems) const;

    /// word_hash, looked up by any string.
    struct StemHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return word_hash(s); }
    };

    struct Phrase {
        std::vector<std::string> stems;
        std::string text;
        std::size_t group;
    };
    std::vector<std::vector<std::size_t>> groups_;  // group -> phrase indices
    std::vector<Phrase> phrases_;
    std::unordered_map<std::string, std::vector<std::size_t>, StemHash, std::equal_to<>>
        by_first_stem_;
};

namespace lexicon {
/// The built-in groups (src/analysis/lexicon_data.cpp).
const std::vector<std::string_view>& default_groups();
}  // namespace lexicon

/// The lexicon of the built-in groups, built on first use (thread-safe).
const Lexicon& default_lexicon();

}  // namespace scout::detail
