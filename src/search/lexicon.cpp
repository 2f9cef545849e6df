// lexicon.cpp: see lexicon.hpp.
#include "search/lexicon.hpp"

#include <algorithm>

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"

namespace scout::detail {
namespace {

/// The stems of the words of `text`. split_words joins its tokens with single spaces and a
/// token holds none, so cutting at spaces gives them back without a stream.
std::vector<std::string> stems_of(std::string_view text) {
    std::vector<std::string> out;
    const std::string words = Analyzer::split_words(text);
    std::size_t start = 0;
    while (start < words.size()) {
        const std::size_t space = std::min(words.find(' ', start), words.size());
        if (space > start) {
            out.push_back(memo_porter_stem(std::string_view(words).substr(start, space - start)));
        }
        start = space + 1;
    }
    return out;
}

}  // namespace

Lexicon::Lexicon(const std::vector<std::string_view>& groups) {
    for (std::string_view line : groups) {
        const std::size_t group = groups_.size();
        groups_.emplace_back();
        std::size_t start = 0;
        while (start <= line.size()) {
            const std::size_t bar = std::min(line.find('|', start), line.size());
            const std::string_view text = line.substr(start, bar - start);
            std::vector<std::string> stems = stems_of(text);
            if (!stems.empty()) {
                by_first_stem_[stems.front()].push_back(phrases_.size());
                groups_[group].push_back(phrases_.size());
                phrases_.push_back({std::move(stems), std::string(text), group});
            }
            start = bar + 1;
        }
    }
}

std::vector<std::string> Lexicon::expansions(std::string_view query) const {
    return expansions_of_stems(stems_of(query));
}

std::vector<std::string> Lexicon::expansions_of_words(const std::vector<std::string>& words) const {
    std::vector<std::string> stems;
    stems.reserve(words.size());
    for (const std::string& w : words) {
        stems.push_back(memo_porter_stem(w));
    }
    return expansions_of_stems(stems);
}

std::vector<std::string> Lexicon::expansions_of_stems(const std::vector<std::string>& words) const {
    std::vector<std::size_t> present;  // phrases the query holds: few, so a list
    std::vector<std::size_t> matched_groups;
    for (std::size_t i = 0; i < words.size(); ++i) {
        auto it = by_first_stem_.find(words[i]);
        if (it == by_first_stem_.end()) {
            continue;
        }
        for (std::size_t p : it->second) {
            const auto& stems = phrases_[p].stems;
            if (i + stems.size() <= words.size() &&
                std::equal(
                    stems.begin(), stems.end(), words.begin() + static_cast<std::ptrdiff_t>(i))) {
                present.push_back(p);
                if (std::find(matched_groups.begin(), matched_groups.end(), phrases_[p].group) ==
                    matched_groups.end()) {
                    matched_groups.push_back(phrases_[p].group);
                }
            }
        }
    }
    std::vector<std::string> out;
    for (std::size_t g : matched_groups) {
        for (std::size_t p : groups_[g]) {
            if (std::find(present.begin(), present.end(), p) == present.end() &&
                std::find(out.begin(), out.end(), phrases_[p].text) == out.end()) {
                out.push_back(phrases_[p].text);
            }
        }
    }
    return out;
}

const Lexicon& default_lexicon() {
    static const Lexicon lexicon(lexicon::default_groups());
    return lexicon;
}

}  // namespace scout::detail
