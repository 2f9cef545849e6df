// porter_stemmer.cpp: M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980.
// Operates on lowercase ASCII words; anything else is returned unchanged.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "analysis/analyzer.hpp"

namespace scout::detail {
namespace {

class PorterStemmer {
public:
    explicit PorterStemmer(std::string_view word) : b_(word) {}

    std::string run() && {
        if (b_.size() <= 2) {
            return std::move(b_);
        }
        step1a();
        step1b();
        step1c();
        step2();
        step3();
        step4();
        step5();
        return std::move(b_);
    }

private:
    std::string b_;

    bool is_consonant(std::size_t i) const {
        switch (b_[i]) {
            case 'a':
            case 'e':
            case 'i':
            case 'o':
            case 'u':
                return false;
            case 'y':
                return i == 0 || !is_consonant(i - 1);
            default:
                return true;
        }
    }

    /// m() of the stem b_[0, len): the number of VC sequences.
    int measure(std::size_t len) const {
        int m = 0;
        std::size_t i = 0;
        while (i < len && is_consonant(i)) {
            ++i;
        }
        while (i < len) {
            while (i < len && !is_consonant(i)) {
                ++i;
            }
            if (i >= len) {
                break;
            }
            while (i < len && is_consonant(i)) {
                ++i;
            }
            ++m;
        }
        return m;
    }

    bool has_vowel(std::size_t len) const {
        for (std::size_t i = 0; i < len; ++i) {
            if (!is_consonant(i)) {
                return true;
            }
        }
        return false;
    }

    bool ends_double_consonant(std::size_t len) const {
        return len >= 2 && b_[len - 1] == b_[len - 2] && is_consonant(len - 1);
    }

    /// *o: the stem ends consonant-vowel-consonant, the last not w, x or y.
    bool ends_cvc(std::size_t len) const {
        if (len < 3 || !is_consonant(len - 1) || is_consonant(len - 2) || !is_consonant(len - 3)) {
            return false;
        }
        const char c = b_[len - 1];
        return c != 'w' && c != 'x' && c != 'y';
    }

    bool ends_with(std::string_view suffix) const {
        return b_.size() >= suffix.size() &&
               std::string_view(b_).substr(b_.size() - suffix.size()) == suffix;
    }

    std::size_t stem_len(std::string_view suffix) const { return b_.size() - suffix.size(); }

    void replace_suffix(std::string_view suffix, std::string_view with) {
        b_.resize(stem_len(suffix));
        b_.append(with);
    }

    /// Replaces the first matching suffix when the remaining stem has measure > min_m.
    template <std::size_t N>
    void replace_first(const std::array<std::pair<std::string_view, std::string_view>, N>& rules,
                       int min_m) {
        for (const auto& [suffix, with] : rules) {
            if (ends_with(suffix)) {
                if (measure(stem_len(suffix)) > min_m) {
                    replace_suffix(suffix, with);
                }
                return;
            }
        }
    }

    void step1a() {
        if (ends_with("sses")) {
            replace_suffix("sses", "ss");
        } else if (ends_with("ies")) {
            replace_suffix("ies", "i");
        } else if (ends_with("ss")) {
            // unchanged
        } else if (ends_with("s")) {
            b_.pop_back();
        }
    }

    void step1b() {
        if (ends_with("eed")) {
            if (measure(stem_len("eed")) > 0) {
                b_.pop_back();
            }
            return;
        }
        std::string_view removed;
        if (ends_with("ed") && has_vowel(stem_len("ed"))) {
            removed = "ed";
        } else if (ends_with("ing") && has_vowel(stem_len("ing"))) {
            removed = "ing";
        } else {
            return;
        }
        b_.resize(stem_len(removed));
        // Porter's three cases, in his order: -at/-bl/-iz and short cvc stems get an 'e' back;
        // a double consonant (other than l, s, z) is undoubled.
        const bool double_consonant = ends_double_consonant(b_.size());
        if (ends_with("at") || ends_with("bl") || ends_with("iz") ||
            (!double_consonant && measure(b_.size()) == 1 && ends_cvc(b_.size()))) {
            b_.push_back('e');
        } else if (double_consonant) {
            const char c = b_.back();
            if (c != 'l' && c != 's' && c != 'z') {
                b_.pop_back();
            }
        }
    }

    void step1c() {
        if (ends_with("y") && has_vowel(b_.size() - 1)) {
            b_.back() = 'i';
        }
    }

    void step2() {
        static constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kRules{{
            {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"},   {"anci", "ance"},
            {"izer", "ize"},    {"abli", "able"},   {"alli", "al"},     {"entli", "ent"},
            {"eli", "e"},       {"ousli", "ous"},   {"ization", "ize"}, {"ation", "ate"},
            {"ator", "ate"},    {"alism", "al"},    {"iveness", "ive"}, {"fulness", "ful"},
            {"ousness", "ous"}, {"aliti", "al"},    {"iviti", "ive"},   {"biliti", "ble"},
        }};
        // Longest match first among suffixes sharing an ending: "ational" before "tional" etc.
        replace_first(kRules, 0);
    }

    void step3() {
        static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kRules{{
            {"icate", "ic"},
            {"ative", ""},
            {"alize", "al"},
            {"iciti", "ic"},
            {"ical", "ic"},
            {"ful", ""},
            {"ness", ""},
        }};
        replace_first(kRules, 0);
    }

    void step4() {
        static constexpr std::array<std::string_view, 19> kSuffixes{
            "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate",
            "iti",   "ous",  "ive",  "ize",  "ion",  "al",   "er",  "ic",  "ou",
        };
        for (std::string_view suffix : kSuffixes) {
            if (!ends_with(suffix)) {
                continue;
            }
            const std::size_t len = stem_len(suffix);
            if (measure(len) <= 1) {
                return;
            }
            if (suffix == "ion" && (len == 0 || (b_[len - 1] != 's' && b_[len - 1] != 't'))) {
                return;
            }
            b_.resize(len);
            return;
        }
    }

    void step5() {
        if (ends_with("e")) {
            const std::size_t len = b_.size() - 1;
            const int m = measure(len);
            if (m > 1 || (m == 1 && !ends_cvc(len))) {
                b_.pop_back();
            }
        }
        if (ends_with("ll") && measure(b_.size()) > 1) {
            b_.pop_back();
        }
    }
};

bool is_lower_ascii_word(std::string_view word) {
    for (char c : word) {
        if (c < 'a' || c > 'z') {
            return false;
        }
    }
    return !word.empty();
}

}  // namespace

std::string porter_stem(std::string_view word) {
    if (!is_lower_ascii_word(word)) {
        return std::string(word);
    }
    return PorterStemmer(word).run();
}

}  // namespace scout::detail
