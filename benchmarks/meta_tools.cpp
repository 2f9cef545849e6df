// meta_tools.cpp: the tool_search and execute_tool definitions counted by the token table.
#include "meta_tools.hpp"

#include <nlohmann/json.hpp>

namespace scout::bench {

const std::string& meta_tools_list_json() {
    static const std::string text = [] {
        using nlohmann::json;
        const json tool_search{
            {"name", "tool_search"},
            {"description",
             "Search the catalog of available tools across all connected MCP servers and return "
             "the best "
             "matches with their input schemas. Call this before execute_tool whenever you need a "
             "capability "
             "you do not already have a tool for."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"query",
                 {{"type", "string"}, {"description", "What you want to do, in natural language"}}},
                {"top_k",
                 {{"type", "integer"},
                  {"minimum", 1},
                  {"maximum", 20},
                  {"default", 5},
                  {"description", "Number of tools to return"}}},
                {"scope",
                 {{"type", "string"},
                  {"enum", {"my_servers", "all_servers"}},
                  {"default", "my_servers"},
                  {"description",
                   "Search only the servers you are allowed to use, or every server"}}}}},
              {"required", {"query"}}}}};
        const json execute_tool{
            {"name", "execute_tool"},
            {"description",
             "Run a tool returned by tool_search. Use the exact tool name and server name from the "
             "search "
             "result; do not guess them. Arguments must follow the tool's inputSchema."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"tool_name",
                 {{"type", "string"}, {"description", "The tool name from tool_search"}}},
                {"server_name",
                 {{"type", "string"},
                  {"description", "The server of that tool, from tool_search; do not guess"}}},
                {"arguments",
                 {{"type", "object"},
                  {"description", "Arguments matching the tool's inputSchema"}}}}},
              {"required", {"tool_name", "server_name", "arguments"}}}}};
        return json{{"tools", {tool_search, execute_tool}}}.dump();
    }();
    return text;
}

}  // namespace scout::bench
