// term.hpp: the kinds of index term. One inverted index holds every kind; a term's kind is
// encoded in the term itself, here and nowhere else, so that no analyzed word can equal a term
// of another kind and the kind can be read back off any term.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace scout::detail {

enum class TermKind : std::uint8_t {
    word,    ///< an analyzed word as written ("files")
    stem,    ///< a word's Porter stem ("file"), so stem-only matches count less than exact ones
    action,  ///< a tool's or query's CRUD action ("delete")
    pair,    ///< two adjacent stemmed words ("speech text")
};

namespace term_prefix {
// Analyzed words are runs of letters and digits, so they never start with these bytes.
inline constexpr std::string_view kStem = "~";
inline constexpr std::string_view kAction =
    "\x01"
    "action:";
inline constexpr std::string_view kPair = "\x02";
}  // namespace term_prefix

/// The index term of `text` as a term of `kind`.
[[nodiscard]] inline std::string make_term(TermKind kind, std::string_view text) {
    std::string_view prefix;
    switch (kind) {
        case TermKind::word:
            break;
        case TermKind::stem:
            prefix = term_prefix::kStem;
            break;
        case TermKind::action:
            prefix = term_prefix::kAction;
            break;
        case TermKind::pair:
            prefix = term_prefix::kPair;
            break;
    }
    std::string term;
    term.reserve(prefix.size() + text.size());
    term.append(prefix).append(text);
    return term;
}

/// The kind of an index term made by make_term.
[[nodiscard]] inline TermKind term_kind(std::string_view term) noexcept {
    if (term.substr(0, term_prefix::kStem.size()) == term_prefix::kStem) {
        return TermKind::stem;
    }
    if (term.substr(0, term_prefix::kAction.size()) == term_prefix::kAction) {
        return TermKind::action;
    }
    if (term.substr(0, term_prefix::kPair.size()) == term_prefix::kPair) {
        return TermKind::pair;
    }
    return TermKind::word;
}

}  // namespace scout::detail
