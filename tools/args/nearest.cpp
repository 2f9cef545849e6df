// nearest.cpp: see nearest.hpp.
#include "args/nearest.hpp"

#include <algorithm>

namespace scout::args {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);  // one row of the distance matrix
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0U : 1U)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string>& candidates,
                                   std::size_t max_distance) {
    constexpr std::size_t kLongestTypo = 64;
    if (word.size() > kLongestTypo) {
        return std::nullopt;
    }
    std::optional<std::string> best;
    std::size_t best_distance = max_distance + 1;
    for (const std::string& candidate : candidates) {
        if (const std::size_t d = edit_distance(word, candidate); d < best_distance) {
            best_distance = d;
            best = candidate;
        }
    }
    return best;
}

}  // namespace scout::args
