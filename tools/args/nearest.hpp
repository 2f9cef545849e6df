// nearest.hpp: "did you mean": the known word nearest to a misspelt one, by edit distance.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scout::args {

/// Levenshtein distance: insertions, deletions and substitutions of single bytes.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `word`, when it is at most `max_distance` edits away (ties: the
/// first). nullopt for none, and for a `word` longer than 64 bytes (no typo is that long).
[[nodiscard]] std::optional<std::string> nearest(std::string_view word,
                                                 const std::vector<std::string>& candidates,
                                                 std::size_t max_distance = 2);

}  // namespace scout::args
