// analyzer.hpp: text -> terms. The Lucene-style chain shared by indexing and querying:
// UTF-8 aware tokenization, identifier splitting, lowercasing, stop words, optional stemming.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scout/options.hpp"

namespace scout::detail {

/// Stateless after construction; safe to share between threads.
class Analyzer {
public:
    Analyzer() = default;
    explicit Analyzer(AnalyzerOptions options) : options_(options) {}

    /// Appends the terms of `text` to `out`. Never fails: invalid UTF-8 bytes act as separators.
    /// Linear in the size of the text.
    void analyze(std::string_view text, std::vector<std::string>& out) const;
    [[nodiscard]] std::vector<std::string> analyze(std::string_view text) const;

    /// Splits an identifier into lowercase words without stop-word removal or stemming
    /// ("getPullRequest_v2" -> "get pull request v 2"). Used to render names for people and models.
    [[nodiscard]] static std::string split_words(std::string_view identifier);

    [[nodiscard]] const AnalyzerOptions& options() const noexcept { return options_; }

private:
    AnalyzerOptions options_;
};

/// Porter stemmer on one lowercase ASCII word; other words are returned unchanged.
[[nodiscard]] std::string porter_stem(std::string_view word);

/// True for the built-in English stop words (lowercase input).
[[nodiscard]] bool is_stop_word(std::string_view word) noexcept;

}  // namespace scout::detail
