// templates.cpp: loading operator-edited description templates and rendering placeholders.
#include <fstream>
#include <sstream>

#include "mcp/internal.hpp"

namespace scout::mcp {

Result<DescriptionTemplates> parse_templates(std::string_view json_text) {
    Json doc = Json::parse(json_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return Status{Errc::invalid_argument, "description templates must be a JSON object"};
    }
    DescriptionTemplates out;
    const std::pair<const char*, std::string*> fields[] = {
        {"tool_search", &out.tool_search},
        {"query", &out.query},
        {"top_k", &out.top_k},
        {"alternatives", &out.alternatives},
        {"max_tokens", &out.max_tokens},
        {"scope", &out.scope},
        {"execute_tool", &out.execute_tool},
        {"tool_name", &out.tool_name},
        {"server_name", &out.server_name},
        {"arguments", &out.arguments},
    };
    for (const auto& [key, value] : doc.items()) {
        std::string* target = nullptr;
        for (const auto& [name, field] : fields) {
            if (key == name) {
                target = field;
            }
        }
        if (target == nullptr) {
            return Status{Errc::invalid_argument, "unknown description template '" + key + "'"};
        }
        if (!value.is_string()) {
            return Status{Errc::invalid_argument,
                          "description template '" + key + "' must be a string"};
        }
        *target = value.get<std::string>();
    }
    return out;
}

Result<DescriptionTemplates> load_templates(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Status{Errc::io_error, "cannot read description templates '" + path + "'"};
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = parse_templates(text.str());
    if (!parsed) {
        return Status{parsed.status().code(), path + ": " + parsed.status().message()};
    }
    return parsed;
}

namespace detail {

std::string render(std::string_view text, const TemplateValues& values) {
    const std::pair<std::string_view, std::string> subst[] = {
        {"{environment}", values.environment.empty() ? "any" : values.environment},
        {"{environment_note}", values.environment_note},
        {"{tool_count}", std::to_string(values.tool_count)},
        {"{server_count}", std::to_string(values.server_count)},
        {"{max_top_k}", std::to_string(SearchOptions::kMaxTopK)},
        {"{max_alternatives}", std::to_string(SearchOptions::kMaxAlternatives)},
    };
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        bool replaced = false;
        if (text[i] == '{') {
            for (const auto& [key, value] : subst) {
                if (text.substr(i, key.size()) == key) {
                    out += value;
                    i += key.size();
                    replaced = true;
                    break;
                }
            }
        }
        if (!replaced) {
            out += text[i++];
        }
    }
    return out;
}

}  // namespace detail
}  // namespace scout::mcp
