// analyzer.hpp: text -> terms. The Lucene-style chain shared by indexing and querying:
// UTF-8 aware tokenization, identifier splitting, lowercasing, stop words, optional stemming.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scout/options.hpp"

namespace scout::detail {

/// One raw token of a text (Analyzer::raw_tokens): bytes [begin, begin + size) of an arena.
struct RawToken {
    std::size_t begin = 0;
    std::size_t size = 0;
    /// A word that case changes split ("MySQL"), emitted whole after its parts because of
    /// keep_joined_case.
    bool joined = false;
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

    /// The tokens analyze() cuts `text` into, before it shortens them, drops stop words or stems
    /// them, with `split_identifiers` and `catenate` (keep_joined_case) as in AnalyzerOptions:
    /// lowercase, in order, appended to `tokens` with their bytes appended to `arena`.
    static void raw_tokens(std::string_view text,
                           bool split_identifiers,
                           bool catenate,
                           std::string& arena,
                           std::vector<RawToken>& tokens);

    /// How many leading bytes of `token` analyze() keeps under max_token_bytes = `limit`: all of
    /// them up to the limit, else the most that end at a UTF-8 character boundary.
    [[nodiscard]] static std::size_t kept_bytes(std::string_view token, std::size_t limit) noexcept;

private:
    AnalyzerOptions options_;
};

/// Porter stemmer on one lowercase ASCII word; other words are returned unchanged.
[[nodiscard]] std::string porter_stem(std::string_view word);

/// True for the built-in English stop words (lowercase input).
[[nodiscard]] bool is_stop_word(std::string_view word) noexcept;

}  // namespace scout::detail
