// templates_file.cpp: see templates_file.hpp. The keys are checked here, with their lines;
// scout::mcp::parse_templates then makes the templates of a text known to be well-formed.
#include "templates_file.hpp"

#include <algorithm>
#include <iterator>

#include "bounded_json.hpp"
#include "config_file.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

constexpr const char* kKeys[] = {"tool_search",
                                 "query",
                                 "top_k",
                                 "alternatives",
                                 "max_tokens",
                                 "scope",
                                 "execute_tool",
                                 "tool_name",
                                 "server_name",
                                 "arguments"};

/// " (line N)" for the first place `key` is written as an object key in `text`, or "" when it
/// is not found as written (escaped characters in it, say).
std::string line_of(std::string_view text, const std::string& key) {
    const std::string quoted = "\"" + key + "\"";
    for (std::size_t at = text.find(quoted); at != std::string_view::npos;
         at = text.find(quoted, at + 1)) {
        std::size_t after = at + quoted.size();
        while (after < text.size() && (text[after] == ' ' || text[after] == '\t' ||
                                       text[after] == '\r' || text[after] == '\n')) {
            ++after;
        }
        if (after < text.size() && text[after] == ':') {
            const auto line = std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
            return " (line " + std::to_string(line + 1) + ")";
        }
    }
    return "";
}

Status bad(const std::string& what) {
    return Status{Errc::invalid_argument, what};
}

}  // namespace

Result<mcp::DescriptionTemplates> parse_templates_file(std::string_view text) {
    auto doc = detail::parse_json(text);
    if (!doc) {
        return bad(doc.status().message());
    }
    if (!doc->is_object()) {
        return bad("not a JSON object of template names to strings (got " +
                   std::string(doc->type_name()) + ")");
    }
    for (const auto& [key, value] : doc->items()) {
        if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
            return bad(detail::clipped(key) +
                       ": unknown key (known: tool_search, query, top_k, alternatives, "
                       "max_tokens, scope, execute_tool, tool_name, server_name, arguments)" +
                       line_of(text, key));
        }
        if (!value.is_string()) {
            return bad(key + ": must be a string (got " + std::string(value.type_name()) + ")" +
                       line_of(text, key));
        }
    }
    return mcp::parse_templates(text);
}

Result<mcp::DescriptionTemplates> load_templates_file(const std::string& path) {
    return load_config_file(path, [](std::string_view text) { return parse_templates_file(text); });
}

}  // namespace scout::gateway
