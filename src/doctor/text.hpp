// text.hpp: the small text helpers of the catalog doctor: word lists for comparing
// descriptions, and identifiers turned into words for self-retrieval queries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scout::detail {

/// Lower-case ASCII letter/digit runs of `text` (other bytes, UTF-8 included, are kept inside
/// words so non-English descriptions still compare), in order.
[[nodiscard]] std::vector<std::string> description_words(std::string_view text);

/// The words joined by single spaces: two descriptions that differ only in case, spacing or
/// punctuation normalise to the same text.
[[nodiscard]] std::string normalized_description(std::string_view text);

/// Jaccard similarity of the two word sets, in [0, 1]; 0 when either is empty.
[[nodiscard]] double word_jaccard(const std::vector<std::string>& a,
                                  const std::vector<std::string>& b);

/// "getUserProfile", "get_user-profile", "files.read" -> "get user profile" / "files read".
[[nodiscard]] std::string identifier_words(std::string_view name);

/// True when `name` is 1..max_chars characters of [a-zA-Z0-9_-].
[[nodiscard]] bool valid_api_name(std::string_view name, std::size_t max_chars);

/// `text` without leading and trailing ASCII whitespace.
[[nodiscard]] std::string_view trim(std::string_view text);

}  // namespace scout::detail
