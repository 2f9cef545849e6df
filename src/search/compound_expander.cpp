// compound_expander.cpp: see compound_expander.hpp.
#include "search/compound_expander.hpp"

#include <algorithm>

namespace scout::detail {
namespace {

bool is_letters(const std::string& w) {
    return !w.empty() &&
           std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

std::vector<std::string> compound_expansions(std::span<const std::string> words,
                                             const std::function<bool(const std::string&)>& known) {
    std::vector<std::string> out;
    const auto add = [&](std::string phrase) {
        if (std::find(words.begin(), words.end(), phrase) == words.end() &&
            std::find(out.begin(), out.end(), phrase) == out.end()) {
            out.push_back(std::move(phrase));
        }
    };
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        if (is_letters(words[i]) && is_letters(words[i + 1]) &&
            words[i].size() + words[i + 1].size() <= kMaxCompoundBytes) {
            std::string joined = words[i] + words[i + 1];
            if (known(joined)) {
                add(std::move(joined));
            }
        }
    }
    for (const std::string& w : words) {
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
            add(w.substr(0, best) + " " + w.substr(best));
        }
    }
    return out;
}

}  // namespace scout::detail
