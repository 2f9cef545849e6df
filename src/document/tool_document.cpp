// tool_document.cpp: MCP tool + server -> the paper's structured tool document (§6.1):
// name words, server/category, server description, tool description, and one line per
// parameter with type, enum values, required/optional and description.
#include "document/tool_document.hpp"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"

namespace scout::detail {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 3;             // nested object properties rendered as a.b.c
constexpr std::size_t kMaxParams = 128;  // a schema with more parameters is cut, not rejected
constexpr std::size_t kMaxEnumValues = 24;

std::string scalar_text(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string type_text(const json& schema);

std::string types_of_alternatives(const json& alternatives) {
    std::string out;
    for (const json& alt : alternatives) {
        const std::string t = type_text(alt);
        if (!t.empty() && t != "null") {
            out += out.empty() ? t : " or " + t;
        }
    }
    return out;
}

std::string type_text(const json& schema) {
    if (!schema.is_object()) {
        return {};
    }
    std::string base;
    if (auto t = schema.find("type"); t != schema.end()) {
        if (t->is_string()) {
            base = t->get<std::string>();
        } else if (t->is_array()) {
            for (const json& each : *t) {
                if (each.is_string() && each.get<std::string>() != "null") {
                    base +=
                        base.empty() ? each.get<std::string>() : " or " + each.get<std::string>();
                }
            }
        }
    }
    for (const char* key : {"anyOf", "oneOf"}) {
        if (base.empty() && schema.contains(key) && schema[key].is_array()) {
            base = types_of_alternatives(schema[key]);
        }
    }
    if (base == "array" && schema.contains("items")) {
        const std::string item = type_text(schema["items"]);
        if (!item.empty()) {
            base += " of " + item;
        }
    }
    return base;
}

std::string enum_text(const json& schema) {
    auto e = schema.find("enum");
    if (e == schema.end() || !e->is_array() || e->empty()) {
        return {};
    }
    std::string out = "one of: ";
    std::size_t n = 0;
    for (const json& v : *e) {
        if (n++ == kMaxEnumValues) {
            out += ", ...";
            break;
        }
        out += (n > 1 ? ", " : "") + scalar_text(v);
    }
    return out;
}

struct ParamRenderer {
    std::string out;
    std::size_t count = 0;

    void render(const json& schema, const std::string& prefix, int depth) {
        auto props = schema.find("properties");
        if (props == schema.end() || !props->is_object()) {
            return;
        }
        const json* required = nullptr;
        if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
            required = &*r;
        }
        for (const auto& [name, sub] : props->items()) {
            if (count++ >= kMaxParams) {
                return;
            }
            const bool is_required =
                required != nullptr &&
                std::find(required->begin(), required->end(), name) != required->end();
            line(prefix + name, sub, is_required);
            if (depth + 1 < kMaxDepth && sub.is_object()) {
                render(sub, prefix + name + ".", depth + 1);
                if (auto items = sub.find("items"); items != sub.end() && items->is_object()) {
                    render(*items, prefix + name + "[].", depth + 1);
                }
            }
        }
    }

    void line(const std::string& name, const json& sub, bool is_required) {
        out += "- " + name + " (";
        const std::string type = type_text(sub);
        if (!type.empty()) {
            out += type + ", ";
        }
        out += is_required ? "required" : "optional";
        if (sub.is_object()) {
            const std::string values = enum_text(sub);
            if (!values.empty()) {
                out += ", " + values;
            }
        }
        out += ")";
        if (sub.is_object()) {
            if (auto d = sub.find("description"); d != sub.end() && d->is_string()) {
                out += ": " + d->get<std::string>();
            }
        }
        out += "\n";
    }
};

}  // namespace

std::string ToolDocument::text() const {
    std::string out;
    out.reserve(name.size() + server.size() + server_description.size() + description.size() +
                parameters.size() + 64);
    out += "Tool: " + name + "\n";
    out += "Category: " + server + "\n";
    if (!server_description.empty()) {
        out += "Server: " + server_description + "\n";
    }
    if (!description.empty()) {
        out += "Description: " + description + "\n";
    }
    if (!parameters.empty()) {
        out += "Parameters:\n" + parameters;
    }
    return out;
}

Result<ToolDocument> make_tool_document(const ServerSpec& server,
                                        const ToolSpec& tool,
                                        const std::string* parameters) {
    ToolDocument doc;
    doc.chunk_id = server.name + "_" + tool.name;
    doc.name = Analyzer::split_words(tool.name);
    if (!tool.title.empty()) {
        doc.name += " (" + tool.title + ")";
    }
    doc.server = Analyzer::split_words(server.name);
    if (!server.category.empty()) {
        doc.server += " [" + server.category + "]";
    }
    if (!server.environment.empty()) {
        doc.server += " environment: " + server.environment;
    }
    doc.server_description = server.description;
    doc.description = tool.description;
    if (parameters != nullptr) {
        doc.parameters = *parameters;
    } else if (!tool.input_schema.empty()) {
        json schema;
        try {
            schema = json::parse(tool.input_schema);
        } catch (const json::exception& e) {
            return Status{Errc::invalid_argument,
                          "tool '" + tool.name + "': inputSchema is not valid JSON: " + e.what()};
        }
        if (!schema.is_object()) {
            return Status{Errc::invalid_argument,
                          "tool '" + tool.name + "': inputSchema must be a JSON object"};
        }
        auto rendered = render_parameters(schema);
        if (!rendered) {
            return Status{Errc::invalid_argument,
                          "tool '" + tool.name + "': " + rendered.status().message()};
        }
        doc.parameters = std::move(rendered.value());
    }
    return doc;
}

Result<std::string> render_parameters(const json& schema) {
    ParamRenderer renderer;
    try {
        renderer.render(schema, "", 0);
    } catch (const json::exception& e) {
        return Status{Errc::invalid_argument, std::string("unreadable inputSchema: ") + e.what()};
    }
    return std::move(renderer.out);
}

}  // namespace scout::detail
