// tool_action.cpp: see tool_action.hpp.
#include "analysis/tool_action.hpp"

#include <array>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/term.hpp"
#include "analysis/word_pairs.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {
namespace {

/// word_hash, looked up by any string, so the word lists are searched without a copy.
struct WordHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return word_hash(s); }
};
using WordSet = std::unordered_set<std::string, WordHash, std::equal_to<>>;

struct VerbGroup {
    ToolAction action;
    std::string_view verbs;  // space-separated base forms
};

// General verbs of tool names and requests. Words that are mostly nouns in tool language
// (build, message, report, new) are left out: they would misread "build artifacts" as create.
constexpr std::array<VerbGroup, 11> kVerbs{{
    {ToolAction::read, "get retrieve fetch show read view display describe obtain inspect"},
    {ToolAction::list, "list enumerate ls"},
    {ToolAction::create, "create add register make insert generate provision"},
    {ToolAction::update, "update modify edit change set patch replace rename"},
    {ToolAction::remove, "delete remove destroy drop erase purge unregister uninstall"},
    {ToolAction::search, "search find query lookup discover locate"},
    {ToolAction::run, "run execute exec invoke start launch trigger"},
    {ToolAction::stop, "stop cancel abort terminate kill halt"},
    {ToolAction::send, "send post notify publish reply"},
    {ToolAction::upload, "upload"},
    {ToolAction::download, "download export"},
}};

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Every verb with its regular inflections (gets, getting, deleted, deleting, stopped, ...):
/// explicit forms rather than stems, because stems merge nouns in ("settings" -> "set").
using VerbForms = std::unordered_map<std::string, ToolAction, WordHash, std::equal_to<>>;

const VerbForms& verb_forms() {
    static const auto* forms = [] {
        auto* m = new VerbForms;
        for (const VerbGroup& g : kVerbs) {
            std::size_t start = 0;
            while (start < g.verbs.size()) {
                std::size_t end = g.verbs.find(' ', start);
                if (end == std::string_view::npos) {
                    end = g.verbs.size();
                }
                const std::string v(g.verbs.substr(start, end - start));
                start = end + 1;
                const std::string stem_e = ends_with(v, "e") ? v.substr(0, v.size() - 1) : v;
                for (const std::string& form : {v,
                                                v + "s",
                                                v + "es",
                                                stem_e + "ed",
                                                stem_e + "ing",
                                                v + v.back() + "ed",
                                                v + v.back() + "ing"}) {
                    m->try_emplace(form, g.action);
                }
            }
        }
        return m;
    }();
    return *forms;
}

ToolAction verb_action(std::string_view word) {
    const auto& forms = verb_forms();
    auto it = forms.find(word);
    return it == forms.end() ? ToolAction::none : it->second;
}

// Plural-looking words that name one thing's attributes rather than many things.
bool is_plural(std::string_view w) {
    static const WordSet singular_sense{"details",
                                        "contents",
                                        "settings",
                                        "properties",
                                        "status",
                                        "news",
                                        "analytics",
                                        "metrics",
                                        "statistics",
                                        "stats",
                                        "access",
                                        "address",
                                        "class",
                                        "process",
                                        "series"};
    return w.size() > 3 && w.back() == 's' && !ends_with(w, "ss") && !ends_with(w, "us") &&
           !ends_with(w, "is") && singular_sense.find(w) == singular_sense.end();
}

bool is_filler(std::string_view w) {
    static const WordSet fillers{
        "a",    "an",    "the", "me",     "my",   "our",   "your",  "his",   "her",
        "its",  "their", "all", "any",    "some", "this",  "that",  "these", "those",
        "i",    "we",    "you", "please", "can",  "could", "would", "will",  "should",
        "to",   "be",    "is",  "are",    "was",  "were",  "do",    "does",  "it",
        "them", "us",    "let", "lets",   "help", "want",  "need",  "like"};
    return fillers.find(w) != fillers.end();
}

bool is_preposition(std::string_view w) {
    static const WordSet prepositions{"in",   "for",    "from",    "of",    "on",     "with",
                                      "at",   "by",     "to",      "into",  "within", "under",
                                      "over", "across", "between", "about", "and",    "or",
                                      "that", "which",  "where",   "whose"};
    return prepositions.find(w) != prepositions.end();
}

/// True when the noun phrase starting at words[from] (up to a preposition) has a plural word.
template <class Word>
bool plural_object(std::span<const Word> words, std::size_t from) {
    for (std::size_t i = from; i < words.size(); ++i) {
        if (is_preposition(words[i])) {
            return false;
        }
        if (!is_filler(words[i]) && is_plural(words[i])) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::string_view action_name(ToolAction action) noexcept {
    switch (action) {
        case ToolAction::none:
            return "none";
        case ToolAction::read:
            return "read";
        case ToolAction::list:
            return "list";
        case ToolAction::create:
            return "create";
        case ToolAction::update:
            return "update";
        case ToolAction::remove:
            return "remove";
        case ToolAction::search:
            return "search";
        case ToolAction::run:
            return "run";
        case ToolAction::stop:
            return "stop";
        case ToolAction::send:
            return "send";
        case ToolAction::upload:
            return "upload";
        case ToolAction::download:
            return "download";
    }
    return "none";
}

ToolAction action_of_tool(std::string_view server_name, std::string_view tool_name) {
    return action_of_tool(plain_words(server_name), tool_name);
}

ToolAction action_of_tool(const std::vector<std::string>& server, std::string_view tool_name) {
    const std::vector<std::string> words = plain_words(tool_name);
    std::size_t first = 0;
    const auto in_server = [&](const std::string& w) {
        for (const std::string& s : server) {
            if (s == w) {
                return true;
            }
        }
        return false;
    };
    while (first + 1 < words.size() && in_server(words[first])) {
        ++first;
    }
    for (std::size_t i = first; i < words.size(); ++i) {
        if (ToolAction a = verb_action(words[i]); a != ToolAction::none) {
            return a;
        }
    }
    return ToolAction::none;
}

ToolAction action_of_query(std::string_view query) {
    return action_of_words(plain_words(query));
}

namespace {

template <class Word>
ToolAction action_of(std::span<const Word> words) {
    std::size_t content_seen = 0;
    for (std::size_t i = 0; i < words.size() && content_seen < 3; ++i) {
        if (is_filler(words[i])) {
            continue;
        }
        ++content_seen;
        const ToolAction a = verb_action(words[i]);
        if (a == ToolAction::read && plural_object<Word>(words, i + 1)) {
            return ToolAction::list;
        }
        if (a != ToolAction::none) {
            return a;
        }
    }
    if (!words.empty() && (words[0] == "what" || words[0] == "which")) {
        for (std::size_t i = 1; i < words.size(); ++i) {
            if (is_preposition(words[i]) || is_filler(words[i]) || words[i] == "does" ||
                words[i] == "did") {
                break;
            }
            if (is_plural(words[i])) {
                return ToolAction::list;
            }
        }
    }
    return ToolAction::none;
}

}  // namespace

ToolAction action_of_words(const std::vector<std::string>& words) {
    return action_of<std::string>(words);
}

ToolAction action_of_words(std::span<const std::string_view> words) {
    return action_of<std::string_view>(words);
}

std::string action_term(ToolAction action) {
    if (action == ToolAction::none) {
        return {};
    }
    return make_term(TermKind::action, action_name(action));
}

}  // namespace scout::detail
