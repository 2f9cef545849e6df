// lexicon.cpp: see lexicon.hpp.
#include "search/lexicon.hpp"

#include <algorithm>

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"

namespace scout::detail {
namespace {

/// Matched phrases and groups a query is expected to hold at most (more go to the heap).
constexpr std::size_t kFew = 16;

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
    std::vector<std::string_view> stems(words.begin(), words.end());
    std::vector<std::size_t> phrases;
    expansion_phrases(stems, phrases);
    std::vector<std::string> out;
    out.reserve(phrases.size());
    for (std::size_t p : phrases) {
        out.push_back(phrases_[p].text);
    }
    return out;
}

void Lexicon::expansion_phrases(std::span<const std::string_view> words,
                                std::vector<std::size_t>& out) const {
    // The phrases the query holds and their groups: few, so short lists on the stack.
    std::size_t present_small[kFew];
    std::size_t groups_small[kFew];
    std::vector<std::size_t> present_more;
    std::vector<std::size_t> groups_more;
    std::size_t n_present = 0;
    std::size_t n_groups = 0;
    const auto holds = [](const std::size_t* small,
                          const std::vector<std::size_t>& more,
                          std::size_t n,
                          std::size_t v) {
        const std::size_t* end = small + std::min(n, kFew);
        return std::find(small, end, v) != end ||
               std::find(more.begin(), more.end(), v) != more.end();
    };
    const auto append =
        [](std::size_t* small, std::vector<std::size_t>& more, std::size_t& n, std::size_t v) {
            if (n < kFew) {
                small[n] = v;
            } else {
                more.push_back(v);
            }
            ++n;
        };
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
                append(present_small, present_more, n_present, p);
                if (!holds(groups_small, groups_more, n_groups, phrases_[p].group)) {
                    append(groups_small, groups_more, n_groups, phrases_[p].group);
                }
            }
        }
    }
    const std::size_t first = out.size();
    for (std::size_t gi = 0; gi < n_groups; ++gi) {
        const std::size_t g = gi < kFew ? groups_small[gi] : groups_more[gi - kFew];
        for (std::size_t p : groups_[g]) {
            if (holds(present_small, present_more, n_present, p)) {
                continue;
            }
            // Each text once: two groups may hold the same phrase.
            const bool seen = std::any_of(
                out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [&](std::size_t q) {
                    return phrases_[q].text == phrases_[p].text;
                });
            if (!seen) {
                out.push_back(p);
            }
        }
    }
}

const Lexicon& default_lexicon() {
    static const Lexicon lexicon(lexicon::default_groups());
    return lexicon;
}

}  // namespace scout::detail
