// compound_expander.hpp: compound words written apart or together. Tool catalogs glue words
// into names and products ("keyvault", "cosmosdb", "filesystem", "webhook") that queries write
// as two words, and the other way round. Against the catalog's own vocabulary, a query's
// adjacent words that form a catalog word add that word, and a query word the catalog lacks
// adds its two catalog-known halves.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace scout::detail {

/// Phrases to add to a query, given its words (lowercase, unstemmed, in order) and a test for
/// "the catalog knows this word". Joins come first, then splits; each phrase once, none that is
/// already a query word. A split needs halves of at least kMinPart bytes; among the valid
/// splits, the most balanced wins, and of equally balanced ones the longer first half.
[[nodiscard]] std::vector<std::string> compound_expansions(
    std::span<const std::string> words, const std::function<bool(const std::string&)>& known);

inline constexpr std::size_t kMinPart = 2;
inline constexpr std::size_t kMaxCompoundBytes = 40;  ///< longer words are left alone (cost bound)

}  // namespace scout::detail
