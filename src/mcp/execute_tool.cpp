// execute_tool.cpp: the execute_tool handler and tools/call dispatch. A call reaches the host's
// executor only for a tool that is indexed (its server ACTIVE) and inside the connector's scope;
// the upstream result is passed through unmodified.
#include <exception>

#include "mcp/internal.hpp"
#include "util/printable.hpp"

namespace scout::mcp {
namespace {

std::string unknown_tool_message(std::string_view tool, std::string_view server) {
    // Clipped: the names come from the client, unchecked, and may be megabytes long.
    std::string msg = "Unknown or unavailable tool '" + scout::detail::clipped(tool) + "'";
    if (!server.empty()) {
        msg += " on server '" + scout::detail::clipped(server) + "'";
    }
    return msg +
           ". Call tool_search first and pass tool_name and server_name exactly as it "
           "returns them.";
}

Json run(const Executor& executor, const ToolKey& key, const Json& arguments) {
    if (!executor) {
        return error_result("No executor is configured for tool calls.");
    }
    try {
        auto result = executor(key, arguments);
        if (!result) {
            return error_result("Tool '" + key.tool + "' on server '" + key.server +
                                "' failed: " + result.status().message());
        }
        return std::move(result.value());
    } catch (const std::exception& e) {
        return error_result("Tool '" + key.tool + "' on server '" + key.server +
                            "' failed: " + e.what());
    }
}

}  // namespace

std::optional<Hit> MetaTools::lookup(const Searcher& searcher,
                                     std::string_view tool_name,
                                     std::string_view server_name) const {
    std::optional<Hit> hit;
    if (!server_name.empty()) {
        hit = searcher.find(server_name, tool_name);
    }
    if (!hit) {
        if (auto key = searcher.resolve(tool_name)) {
            if (server_name.empty() || key->server == server_name) {
                hit = searcher.find(key->server, key->tool);
            }
        }
    }
    if (!hit || !detail::in_scope(
                    searcher, scope_options(Scope::all_servers), ToolKey{hit->server, hit->tool})) {
        return std::nullopt;
    }
    return hit;
}

Json MetaTools::execute_tool(const Searcher& searcher,
                             const Json& args,
                             const Executor& executor) const {
    if (!args.is_object()) {
        return error_result("execute_tool needs an arguments object with \"tool_name\".");
    }
    auto name = args.find("tool_name");
    if (name == args.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
        return error_result(
            "execute_tool needs a non-empty \"tool_name\" string. Call "
            "tool_search to find it.");
    }
    std::string server;
    if (auto s = args.find("server_name"); s != args.end() && !s->is_null()) {
        if (!s->is_string()) {
            return error_result("\"server_name\" must be a string.");
        }
        server = s->get<std::string>();
    }
    Json arguments = Json::object();
    if (auto a = args.find("arguments"); a != args.end() && !a->is_null()) {
        if (!a->is_object()) {
            return error_result("\"arguments\" must be a JSON object.");
        }
        arguments = *a;
    }
    const std::string& tool = name->get_ref<const std::string&>();
    auto hit = lookup(searcher, tool, server);
    if (!hit) {
        return error_result(unknown_tool_message(tool, server));
    }
    return run(executor, ToolKey{hit->server, hit->tool}, arguments);
}

Json MetaTools::call_tool(const Searcher& searcher,
                          std::string_view name,
                          const Json& arguments,
                          const Executor& executor) const {
    if (name == kToolSearch) {
        return tool_search(searcher, arguments);
    }
    if (name == kExecuteTool) {
        return execute_tool(searcher, arguments, executor);
    }
    // A tool from the full list (served when search is off): its enhanced name routes directly.
    if (auto hit = lookup(searcher, name, {})) {
        if (!arguments.is_null() && !arguments.is_object()) {
            return error_result("\"arguments\" must be a JSON object.");
        }
        return run(executor,
                   ToolKey{hit->server, hit->tool},
                   arguments.is_null() ? Json::object() : arguments);
    }
    return error_result(unknown_tool_message(name, {}));
}

}  // namespace scout::mcp
