// direct_names.cpp: see direct_names.hpp.
#include "direct_names.hpp"

#include <algorithm>

#include "printable.hpp"

namespace scout::gateway {

std::string candidates_text(const std::vector<std::string>& qualified) {
    std::string out;
    const std::size_t listed = std::min(qualified.size(), kMaxCandidatesListed);
    for (std::size_t i = 0; i < listed; ++i) {
        out += (i == 0 ? "" : ", ") + detail::clipped(qualified[i], 200);
    }
    if (qualified.size() > listed) {
        out += " and " + std::to_string(qualified.size() - listed) + " more";
    }
    return out;
}

std::string ambiguous_name_message(std::string_view kind,
                                   std::string_view name,
                                   const std::vector<std::string>& qualified) {
    return "Ambiguous " + std::string(kind) + " '" + detail::clipped(std::string(name)) +
           "': offered by " + std::to_string(qualified.size()) + " servers (" +
           candidates_text(qualified) + "); name one with its server prefix";
}

bool uri_template_matches(std::string_view uri_template, std::string_view uri) {
    std::size_t t = 0;
    std::size_t u = 0;
    while (t < uri_template.size()) {
        if (uri_template[t] != '{') {
            if (u >= uri.size() || uri[u] != uri_template[t]) {
                return false;
            }
            ++t;
            ++u;
            continue;
        }
        const std::size_t close = uri_template.find('}', t);
        if (close == std::string_view::npos) {
            return false;  // not a template: an unclosed expression
        }
        t = close + 1;
        // The expression's value runs up to the next literal text of the template.
        const std::size_t next_brace = uri_template.find('{', t);
        const std::string_view literal = uri_template.substr(
            t, next_brace == std::string_view::npos ? std::string_view::npos : next_brace - t);
        if (literal.empty()) {
            if (t < uri_template.size()) {
                return false;  // two expressions in a row: no literal tells them apart
            }
            return u < uri.size();  // the last expression takes the rest, at least a character
        }
        const std::size_t at = uri.find(literal, u + 1);
        if (at == std::string_view::npos || at == u) {
            return false;
        }
        u = at;
    }
    return u == uri.size();
}

}  // namespace scout::gateway
