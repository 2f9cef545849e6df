// static_checks.cpp: the checks that need no search: descriptions, parameter documentation,
// schema types, LLM-API-valid names, and exact duplicate descriptions.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "doctor/checks.hpp"
#include "doctor/text.hpp"

namespace scout::detail {
namespace {

using Json = nlohmann::json;

Finding tool_finding(FindingKind kind,
                     Severity severity,
                     const ServerSpec& server,
                     const ToolSpec& tool,
                     std::string detail,
                     std::string fix) {
    return Finding{kind, severity, server.name, tool.name, std::move(detail), std::move(fix), {}};
}

/// A schema node states its type when it has "type" or a construct that implies one.
bool typed(const Json& node) {
    if (!node.is_object()) {
        return false;
    }
    for (const char* key : {"type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"}) {
        if (node.contains(key)) {
            return true;
        }
    }
    return false;
}

std::string join(const std::vector<std::string>& names, std::size_t max_names = 8) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < max_names; ++i) {
        out += (i ? ", " : "") + names[i];
    }
    if (names.size() > max_names) {
        out += ", ... (" + std::to_string(names.size()) + " in all)";
    }
    return out;
}

void check_schema(const ServerSpec& server, const ToolSpec& tool, std::vector<Finding>& out) {
    if (tool.input_schema.empty()) {
        return;  // no schema means {"type": "object"} with no parameters
    }
    const Json schema = Json::parse(tool.input_schema, nullptr, false);
    if (!schema.is_object()) {
        return;  // the catalog rejects such schemas on upsert; nothing to advise here
    }
    std::vector<std::string> undocumented;
    std::vector<std::string> untyped;
    if (!typed(schema)) {
        untyped.emplace_back("(the schema itself)");
    }
    if (auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
        for (const auto& [name, prop] : props->items()) {
            const auto d = prop.is_object() ? prop.find("description") : prop.end();
            if (!prop.is_object() || d == prop.end() || !d->is_string() ||
                trim(d->get_ref<const std::string&>()).empty()) {
                undocumented.push_back(name);
            }
            if (!typed(prop)) {
                untyped.push_back(name);
            }
        }
    }
    if (!undocumented.empty()) {
        out.push_back(
            tool_finding(FindingKind::missing_parameter_description,
                         Severity::warning,
                         server,
                         tool,
                         "parameters without a description: " + join(undocumented),
                         "describe each parameter: what it is, its format and an example"));
    }
    if (!untyped.empty()) {
        out.push_back(tool_finding(FindingKind::untyped_schema,
                                   Severity::warning,
                                   server,
                                   tool,
                                   "no \"type\": " + join(untyped),
                                   "give the schema and every parameter a JSON Schema \"type\""));
    }
}

}  // namespace

void check_tool(const ServerSpec& server,
                const ToolSpec& tool,
                const DoctorOptions& options,
                std::vector<Finding>& out) {
    const std::string_view description = trim(tool.description);
    if (description.empty()) {
        out.push_back(tool_finding(FindingKind::empty_description,
                                   Severity::error,
                                   server,
                                   tool,
                                   "the description is empty",
                                   "say what the tool does, on what, and what it returns, in the "
                                   "words a user would search for"));
    } else if (description.size() < options.min_description_chars) {
        out.push_back(tool_finding(FindingKind::short_description,
                                   Severity::warning,
                                   server,
                                   tool,
                                   "the description has " + std::to_string(description.size()) +
                                       " characters: \"" + std::string(description) + "\"",
                                   "write at least one full sentence: the action, the object and "
                                   "the result"));
    }
    check_schema(server, tool, out);
    if (!valid_api_name(tool.name, options.max_name_chars)) {
        out.push_back(tool_finding(
            FindingKind::invalid_name,
            Severity::error,
            server,
            tool,
            "the name has " + std::to_string(tool.name.size()) +
                " characters; LLM tool APIs accept 1.." + std::to_string(options.max_name_chars) +
                " of [a-zA-Z0-9_-]",
            "rename the tool to a short snake_case name of letters, digits, '_' and '-'"));
    }
}

void check_server(const ServerSpec& server, std::vector<Finding>& out) {
    if (trim(server.description).empty()) {
        out.push_back(Finding{FindingKind::empty_server_description,
                              Severity::info,
                              server.name,
                              "",
                              "the server has no description",
                              "describe the server's domain: it is indexed as context for "
                              "every tool of the server",
                              {}});
    }
}

void check_duplicates(const CatalogSpec& spec, std::vector<Finding>& out) {
    std::map<std::string, std::vector<ToolKey>> by_text;
    for (const ServerSpec& server : spec.servers) {
        for (const ToolSpec& tool : server.tools) {
            std::string text = normalized_description(tool.description);
            if (!text.empty()) {
                by_text[std::move(text)].push_back(ToolKey{server.name, tool.name});
            }
        }
    }
    for (const auto& [text, keys] : by_text) {
        if (keys.size() < 2) {
            continue;
        }
        for (const ToolKey& key : keys) {
            Finding f{FindingKind::duplicate_description,
                      Severity::warning,
                      key.server,
                      key.tool,
                      "",
                      "",
                      {}};
            bool same_server = false;
            for (const ToolKey& other : keys) {
                if (!(other == key)) {
                    same_server = same_server || other.server == key.server;
                    if (f.related.size() < 5) {
                        f.related.push_back(other);
                    }
                }
            }
            f.detail = "the same description as " + std::to_string(keys.size() - 1) +
                       " other tool(s)" +
                       (same_server ? ", on the same server" : ", on other servers");
            f.fix =
                "say what sets this tool apart (its object, scope or result), so search and "
                "the model can tell the tools apart";
            out.push_back(std::move(f));
        }
    }
}

}  // namespace scout::detail
