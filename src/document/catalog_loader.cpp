// catalog_loader.cpp: the catalog JSON format and MCP tools/list results -> CatalogSpec.
// nlohmann exceptions stop here; callers only ever see a Status naming the bad entry.
#include "scout/catalog_loader.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "document/catalog_parse.hpp"
#include "document/validate.hpp"
#include "util/file_io.hpp"
#include "util/json_limits.hpp"
#include "util/printable.hpp"

namespace scout {
namespace {

using nlohmann::json;

/// Reads an optional string member; a present non-string value is an error.
Status optional_string(const json& obj,
                       const char* key,
                       const std::string& where,
                       std::string& out) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        return {};
    }
    if (!it->is_string()) {
        return {Errc::invalid_argument, where + ": '" + key + "' must be a string"};
    }
    out = it->get<std::string>();
    return {};
}

Status required_name(const json& obj, const std::string& where, std::string& out) {
    auto it = obj.find("name");
    if (it == obj.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
        return {Errc::invalid_argument, where + ": 'name' must be a non-empty string"};
    }
    out = it->get<std::string>();
    return {};
}

Result<ToolSpec> parse_tool(const json& j, const std::string& where) {
    if (!j.is_object()) {
        return Status{Errc::invalid_argument, where + ": a tool must be a JSON object"};
    }
    ToolSpec tool;
    Status s = required_name(j, where, tool.name);
    if (s.ok()) {
        s = optional_string(j, "title", where, tool.title);
    }
    if (s.ok()) {
        s = optional_string(j, "description", where, tool.description);
    }
    if (!s.ok()) {
        return s;
    }
    for (const char* key : {"inputSchema", "annotations"}) {
        auto it = j.find(key);
        if (it == j.end() || it->is_null()) {
            continue;
        }
        if (!it->is_object()) {
            return Status{Errc::invalid_argument, where + ": '" + key + "' must be a JSON object"};
        }
        (std::string_view(key) == "inputSchema" ? tool.input_schema : tool.annotations) =
            it->dump();
    }
    return tool;
}

Result<std::vector<ToolSpec>> parse_tools(const json& tools, const std::string& where) {
    if (!tools.is_array()) {
        return Status{Errc::invalid_argument, where + ": 'tools' must be an array"};
    }
    std::vector<ToolSpec> out;
    out.reserve(tools.size());
    for (std::size_t i = 0; i < tools.size(); ++i) {
        auto tool = parse_tool(tools[i], where + "tools[" + std::to_string(i) + "]");
        if (!tool) {
            return tool.status();
        }
        out.push_back(std::move(tool.value()));
    }
    return out;
}

Result<ServerSpec> parse_server(const json& j, const std::string& where) {
    if (!j.is_object()) {
        return Status{Errc::invalid_argument, where + ": a server must be a JSON object"};
    }
    ServerSpec server;
    Status s = required_name(j, where, server.name);
    if (s.ok()) {
        s = optional_string(j, "description", where, server.description);
    }
    if (s.ok()) {
        s = optional_string(j, "category", where, server.category);
    }
    if (s.ok()) {
        s = optional_string(j, "environment", where, server.environment);
    }
    std::string status;
    if (s.ok()) {
        s = optional_string(j, "status", where, status);
    }
    if (!s.ok()) {
        return s;
    }
    if (!status.empty()) {
        auto parsed = parse_server_status(status);
        if (!parsed) {
            return Status{Errc::invalid_argument,
                          where + ": unknown status '" + detail::clipped(status) +
                              "' (expected ACTIVE, DEGRADED, INACTIVE or REJECTED)"};
        }
        server.status = *parsed;
    }
    if (auto it = j.find("tools"); it != j.end()) {
        auto tools = parse_tools(*it, where + ".");
        if (!tools) {
            return tools.status();
        }
        server.tools = std::move(tools.value());
    }
    return server;
}

/// Depth-bounded: a schema nested 100000 deep would overflow the stack when dumped below.
Result<json> parse_json(std::string_view text) {
    return detail::parse_json(text);
}

Status with_prefix(const Status& s, const std::string& prefix) {
    return {s.code(), prefix + s.message()};
}

}  // namespace

Result<CatalogSpec> parse_catalog_json(std::string_view text) {
    return detail::parse_catalog_json(text, {});
}

Result<CatalogSpec> detail::parse_catalog_json(std::string_view text,
                                               const ParseProgress& progress) {
    auto doc =
        progress ? detail::parse_json(text, kMaxJsonDepth, progress) : detail::parse_json(text);
    if (!doc) {
        return doc.status();
    }
    const json& root = doc.value();
    if (!root.is_object() || !root.contains("servers") || !root["servers"].is_array()) {
        return Status{Errc::invalid_argument, "expected an object with a 'servers' array"};
    }
    CatalogSpec spec;
    const json& servers = root["servers"];
    spec.servers.reserve(servers.size());
    try {
        for (std::size_t i = 0; i < servers.size(); ++i) {
            auto server = parse_server(servers[i], "servers[" + std::to_string(i) + "]");
            if (!server) {
                return server.status();
            }
            spec.servers.push_back(std::move(server.value()));
        }
    } catch (const std::exception& e) {
        return Status{Errc::invalid_argument, std::string("bad catalog entry: ") + e.what()};
    }
    return spec;
}

Result<CatalogSpec> load_catalog_file(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path, kMaxCatalogFileBytes);
    if (!text) {
        return text.status();
    }
    auto spec = parse_catalog_json(text.value());
    if (!spec) {
        return with_prefix(spec.status(), path.string() + ": ");
    }
    return spec;
}

Result<std::vector<ToolSpec>> parse_tools_list(std::string_view text) {
    auto doc = parse_json(text);
    if (!doc) {
        return doc.status();
    }
    const json* root = &doc.value();
    if (root->is_object() && root->contains("result")) {
        root = &(*root)["result"];
    }
    if (!root->is_object() || !root->contains("tools")) {
        return Status{Errc::invalid_argument, "expected a tools/list result with a 'tools' array"};
    }
    try {
        return parse_tools((*root)["tools"], "");
    } catch (const std::exception& e) {
        return Status{Errc::invalid_argument, std::string("bad tools/list entry: ") + e.what()};
    }
}

Status validate_tool(const ServerSpec& server, const ToolSpec& tool) {
    return detail::validate_tool(server, tool);
}

}  // namespace scout
