// analyzer.hpp: text -> terms. The Lucene-style chain shared by indexing and querying:
// UTF-8 aware tokenization, identifier splitting, lowercasing, stop words, optional stemming.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scout {

struct AnalyzerOptions {
    /// Split identifiers: snake_case, camelCase, kebab-case, dotted.names and letter/digit runs.
    bool split_identifiers = true;
    /// With split_identifiers, a word that case changes split ("MySQL", "GitHub") is also kept
    /// whole ("mysql"), after its parts.
    bool keep_joined_case = true;
    bool remove_stop_words = true;
    /// Porter (1980) suffix stripping of English words.
    bool stem = true;
    /// With stemming, also keep each word's surface form: a word then yields both "word" and
    /// "~stem", so exact matches outscore matches by stem alone.
    bool keep_surface = true;
    /// Longer tokens are cut to this many bytes (at a UTF-8 boundary), so huge inputs stay cheap.
    std::size_t max_token_bytes = 64;
};

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

/// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view text) noexcept;

/// Porter stemmer on one lowercase ASCII word; other words are returned unchanged.
[[nodiscard]] std::string porter_stem(std::string_view word);

/// True for the built-in English stop words (lowercase input).
[[nodiscard]] bool is_stop_word(std::string_view word) noexcept;

}  // namespace scout
