// tool_document.hpp: the structured text that represents one tool to both retrieval branches.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// The paper's tool-document template, field by field. Each field is plain text; `text()`
/// renders them as one document (the dense branch's input).
struct ToolDocument {
    std::string chunk_id;  ///< "{server}_{tool}", deterministic: upserts are idempotent
    std::string name;      ///< tool name split into words, plus the title if any
    std::string server;    ///< server name words, category, environment label
    std::string server_description;
    std::string description;
    std::string parameters;  ///< one line per parameter: name (type, required|optional, one of:
                             ///< ...): description

    [[nodiscard]] std::string text() const;
};

/// Builds the document of `tool` served by `server` (server.tools is not read). Fails with
/// invalid_argument when the tool's input schema is not a JSON object. `parameters`, when given,
/// is the parameters field already rendered from the tool's input schema (render_parameters),
/// taken instead of parsing the schema again.
[[nodiscard]] Result<ToolDocument> make_tool_document(const ServerSpec& server,
                                                      const ToolSpec& tool,
                                                      const std::string* parameters = nullptr);

/// The `parameters` field of a tool whose input schema, already parsed, is `schema` (a JSON
/// object). Lets a validator that has parsed the schema check that it renders without parsing it
/// again. invalid_argument ("unreadable inputSchema: ...") when rendering fails.
[[nodiscard]] Result<std::string> render_parameters(const nlohmann::json& schema);

}  // namespace scout::detail
