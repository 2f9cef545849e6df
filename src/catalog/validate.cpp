// validate.cpp: see validate.hpp.
#include <set>

#include <nlohmann/json.hpp>

#include "catalog/validate.hpp"
#include "scout/analyzer.hpp"
#include "scout/catalog.hpp"
#include "scout/tool_document.hpp"

namespace scout::detail {
namespace {

Status check_text(std::string_view what, std::string_view text, std::size_t limit, bool required) {
    if (required && text.empty()) {
        return {Errc::invalid_argument, std::string(what) + " is empty"};
    }
    if (text.size() > limit) {
        return {Errc::invalid_argument, std::string(what) + " is " + std::to_string(text.size()) +
                                            " bytes, over the limit of " + std::to_string(limit)};
    }
    if (!is_valid_utf8(text)) {
        return {Errc::invalid_argument, std::string(what) + " is not valid UTF-8"};
    }
    return {};
}

Status check_json_object(std::string_view what, const std::string& text) {
    if (text.empty()) {
        return {};
    }
    try {
        if (!nlohmann::json::parse(text).is_object()) {
            return {Errc::invalid_argument, std::string(what) + " must be a JSON object"};
        }
    } catch (const nlohmann::json::exception& e) {
        return {Errc::invalid_argument, std::string(what) + " is not valid JSON: " + e.what()};
    }
    return {};
}

}  // namespace

Status validate_tool(const ServerSpec& server, const ToolSpec& tool) {
    const std::string where = "server '" + server.name + "', tool '" + tool.name + "': ";
    Status s = check_text(where + "name", tool.name, kMaxNameBytes, true);
    if (s.ok()) s = check_text(where + "title", tool.title, kMaxNameBytes, false);
    if (s.ok()) s = check_text(where + "description", tool.description, kMaxDescriptionBytes, false);
    if (s.ok()) s = check_text(where + "inputSchema", tool.input_schema, kMaxSchemaBytes, false);
    if (s.ok()) s = check_text(where + "annotations", tool.annotations, kMaxSchemaBytes, false);
    if (s.ok()) s = check_json_object(where + "inputSchema", tool.input_schema);
    if (s.ok()) s = check_json_object(where + "annotations", tool.annotations);
    if (!s.ok()) {
        return s;
    }
    auto doc = make_tool_document(server, tool);
    return doc ? Status{} : Status{doc.status().code(), where + doc.status().message()};
}

Status validate_server(const ServerSpec& server) {
    Status s = check_text("server name", server.name, kMaxNameBytes, true);
    const std::string where = "server '" + server.name + "': ";
    if (s.ok()) s = check_text(where + "description", server.description, kMaxDescriptionBytes, false);
    if (s.ok()) s = check_text(where + "category", server.category, kMaxNameBytes, false);
    if (s.ok()) s = check_text(where + "environment", server.environment, kMaxNameBytes, false);
    if (!s.ok()) {
        return s;
    }
    std::set<std::string_view> seen;
    for (const ToolSpec& tool : server.tools) {
        if (!seen.insert(tool.name).second) {
            return {Errc::invalid_argument, where + "duplicate tool name '" + tool.name + "'"};
        }
        s = validate_tool(server, tool);
        if (!s.ok()) {
            return s;
        }
    }
    return {};
}

}  // namespace scout::detail
