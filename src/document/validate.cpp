// validate.cpp: see validate.hpp.
#include "document/validate.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "document/tool_document.hpp"
#include "util/json_check.hpp"
#include "util/json_limits.hpp"
#include "util/printable.hpp"
#include "util/utf8.hpp"

namespace scout::detail {
namespace {

/// Names end up in terminals, logs and model prompts: no control characters in them.
enum class Kind : std::uint8_t { name, text };

bool has_control(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
        const auto b = static_cast<unsigned char>(c);
        return b < 0x20 || b == 0x7f;
    });
}

Status check_text(std::string_view what,
                  std::string_view text,
                  std::size_t limit,
                  bool required,
                  Kind kind = Kind::text) {
    if (required && text.empty()) {
        return {Errc::invalid_argument, std::string(what) + " is empty"};
    }
    if (text.size() > limit) {
        return {Errc::invalid_argument,
                std::string(what) + " is " + std::to_string(text.size()) +
                    " bytes, over the limit of " + std::to_string(limit)};
    }
    if (!is_valid_utf8(text)) {
        return {Errc::invalid_argument, std::string(what) + " is not valid UTF-8"};
    }
    if (kind == Kind::name && has_control(text)) {
        return {Errc::invalid_argument,
                std::string(what) + " '" + clipped(text) + "' holds a control character"};
    }
    return {};
}

/// Non-empty `text` must be a JSON object; it is parsed into `out` when given.
Status check_json_object(std::string_view what,
                         const std::string& text,
                         nlohmann::json* out = nullptr) {
    if (text.empty()) {
        return {};
    }
    // Depth-bounded: whatever holds this text later dumps or walks it recursively.
    auto parsed = parse_json(text);
    if (!parsed) {
        return {Errc::invalid_argument,
                std::string(what) + " is not valid JSON: " + parsed.status().message()};
    }
    if (!parsed->is_object()) {
        return {Errc::invalid_argument, std::string(what) + " must be a JSON object"};
    }
    if (out != nullptr) {
        *out = std::move(parsed.value());
    }
    return {};
}

/// check_text's verdict without its message: the stored catalog's checks build a message only
/// for the text that fails.
bool text_ok(std::string_view text, std::size_t limit, bool required, Kind kind) {
    return !(required && text.empty()) && text.size() <= limit && is_valid_utf8(text) &&
           !(kind == Kind::name && has_control(text));
}

bool json_object_ok(std::string_view text) {
    return text.empty() || is_json_object(text);
}

}  // namespace

Status validate_stored_server(const CatalogView& catalog, const ServerView& server) {
    if (!text_ok(server.name, kMaxNameBytes, true, Kind::name) ||
        !text_ok(server.description, kMaxDescriptionBytes, false, Kind::text) ||
        !text_ok(server.category, kMaxNameBytes, false, Kind::name) ||
        !text_ok(server.environment, kMaxNameBytes, false, Kind::name)) {
        return validate_server(server_spec(catalog,
                                           {server.name,
                                            server.description,
                                            server.category,
                                            server.environment,
                                            server.status,
                                            0,
                                            0}));  // for its message
    }
    const std::string_view* previous = nullptr;
    for (std::uint32_t t = server.first_tool; t < server.end_tool; ++t) {
        const ToolView& tool = catalog.tools[t];
        if (previous != nullptr && !(*previous < tool.name)) {
            return {Errc::invalid_argument,
                    "server '" + clipped(server.name) + "': tool '" + clipped(tool.name) +
                        "' is out of order or appears twice"};
        }
        previous = &tool.name;
        if (!text_ok(tool.name, kMaxNameBytes, true, Kind::name) ||
            !text_ok(tool.title, kMaxNameBytes, false, Kind::name) ||
            !text_ok(tool.description, kMaxDescriptionBytes, false, Kind::text) ||
            !text_ok(tool.input_schema, kMaxSchemaBytes, false, Kind::text) ||
            !text_ok(tool.annotations, kMaxSchemaBytes, false, Kind::text) ||
            !json_object_ok(tool.input_schema) || !json_object_ok(tool.annotations)) {
            ServerSpec named =
                server_spec(catalog, {server.name, {}, {}, {}, server.status, t, t + 1});
            Status s = detail::validate_tool(named, named.tools.front());
            return s.ok() ? Status{Errc::invalid_argument,
                                   "server '" + clipped(server.name) + "', tool '" +
                                       clipped(tool.name) + "': not a valid tool"}
                          : s;
        }
    }
    return {};
}

Status validate_tool(const ServerSpec& server,
                     const ToolSpec& tool,
                     std::optional<std::string>* parameters) {
    const std::string where =
        "server '" + clipped(server.name) + "', tool '" + clipped(tool.name) + "': ";
    Status s = check_text(where + "name", tool.name, kMaxNameBytes, true, Kind::name);
    if (s.ok()) {
        s = check_text(where + "title", tool.title, kMaxNameBytes, false, Kind::name);
    }
    if (s.ok()) {
        s = check_text(where + "description", tool.description, kMaxDescriptionBytes, false);
    }
    if (s.ok()) {
        s = check_text(where + "inputSchema", tool.input_schema, kMaxSchemaBytes, false);
    }
    if (s.ok()) {
        s = check_text(where + "annotations", tool.annotations, kMaxSchemaBytes, false);
    }
    nlohmann::json schema;
    if (s.ok()) {
        s = check_json_object(where + "inputSchema", tool.input_schema, &schema);
    }
    if (s.ok()) {
        s = check_json_object(where + "annotations", tool.annotations);
    }
    if (!s.ok() || tool.input_schema.empty()) {
        return s;
    }
    // The schema must render into a document (the rest of make_tool_document cannot fail);
    // rendering the parsed value spares a second parse of every schema.
    auto rendered = render_parameters(schema);
    if (!rendered) {
        return Status{rendered.status().code(),
                      where + "tool '" + tool.name + "': " + rendered.status().message()};
    }
    if (parameters != nullptr) {
        *parameters = std::move(rendered.value());
    }
    return {};
}

Status validate_server(const ServerSpec& server,
                       std::vector<std::optional<std::string>>* parameters) {
    Status s = check_text("server name", server.name, kMaxNameBytes, true, Kind::name);
    const std::string where = "server '" + clipped(server.name) + "': ";
    if (s.ok()) {
        s = check_text(where + "description", server.description, kMaxDescriptionBytes, false);
    }
    if (s.ok()) {
        s = check_text(where + "category", server.category, kMaxNameBytes, false, Kind::name);
    }
    if (s.ok()) {
        s = check_text(where + "environment", server.environment, kMaxNameBytes, false, Kind::name);
    }
    if (!s.ok()) {
        return s;
    }
    if (parameters != nullptr) {
        parameters->clear();
        parameters->reserve(server.tools.size());
    }
    std::set<std::string_view> seen;
    for (const ToolSpec& tool : server.tools) {
        if (!seen.insert(tool.name).second) {
            return {Errc::invalid_argument,
                    where + "duplicate tool name '" + clipped(tool.name) + "'"};
        }
        std::optional<std::string> rendered;
        s = validate_tool(server, tool, parameters != nullptr ? &rendered : nullptr);
        if (!s.ok()) {
            return s;
        }
        if (parameters != nullptr) {
            parameters->push_back(std::move(rendered));
        }
    }
    return {};
}

}  // namespace scout::detail
