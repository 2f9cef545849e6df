// text.cpp: word lists, normalised descriptions and identifier splitting for the doctor.
#include "doctor/text.hpp"

#include <algorithm>
#include <set>

namespace scout::detail {
namespace {

bool is_ascii_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_upper(char c) {
    return c >= 'A' && c <= 'Z';
}
bool is_lower(char c) {
    return c >= 'a' && c <= 'z';
}
char to_lower(char c) {
    return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}
/// Word bytes: ASCII letters and digits, and every non-ASCII byte (parts of UTF-8 letters).
bool is_word_byte(char c) {
    return is_ascii_alnum(c) || static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

std::vector<std::string> description_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        if (is_word_byte(c)) {
            word.push_back(to_lower(c));
        } else if (!word.empty()) {
            words.push_back(std::move(word));
            word.clear();
        }
    }
    if (!word.empty()) {
        words.push_back(std::move(word));
    }
    return words;
}

std::string normalized_description(std::string_view text) {
    std::string out;
    for (const std::string& w : description_words(text)) {
        out += (out.empty() ? "" : " ") + w;
    }
    return out;
}

double word_jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    const std::set<std::string> sa(a.begin(), a.end());
    const std::set<std::string> sb(b.begin(), b.end());
    if (sa.empty() || sb.empty()) {
        return 0;
    }
    std::size_t shared = 0;
    for (const std::string& w : sa) {
        shared += sb.count(w);
    }
    const std::size_t either = sa.size() + sb.size() - shared;
    return static_cast<double>(shared) / static_cast<double>(either);
}

std::string identifier_words(std::string_view name) {
    std::string out;
    char prev = ' ';
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (!is_word_byte(c)) {
            prev = ' ';
            continue;
        }
        // A new word starts after a separator, at a lower->upper change ("userProfile"), and at
        // the last capital of a run followed by a lower-case letter ("HTTPServer" -> HTTP Server).
        const bool next_lower = i + 1 < name.size() && is_lower(name[i + 1]);
        const bool boundary = prev == ' ' || (is_lower(prev) && is_upper(c)) ||
                              (is_upper(prev) && is_upper(c) && next_lower);
        if (boundary && !out.empty()) {
            out.push_back(' ');
        }
        out.push_back(to_lower(c));
        prev = c;
    }
    return out;
}

bool valid_api_name(std::string_view name, std::size_t max_chars) {
    if (name.empty() || name.size() > max_chars) {
        return false;
    }
    return std::all_of(
        name.begin(), name.end(), [](char c) { return is_ascii_alnum(c) || c == '_' || c == '-'; });
}

std::string_view trim(std::string_view text) {
    const auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    };
    while (!text.empty() && space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && space(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace scout::detail
