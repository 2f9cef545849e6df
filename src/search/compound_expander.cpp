// compound_expander.cpp: see compound_expander.hpp.
#include "search/compound_expander.hpp"

namespace scout::detail {

std::vector<std::string> compound_expansions(std::span<const std::string> words,
                                             const std::function<bool(const std::string&)>& known) {
    CompoundPhrases phrases;
    phrases.find(words, [&](std::string_view w) { return known(std::string(w)); });
    std::vector<std::string> out;
    out.reserve(phrases.size());
    for (std::size_t i = 0; i < phrases.size(); ++i) {
        out.emplace_back(phrases[i]);
    }
    return out;
}

}  // namespace scout::detail
