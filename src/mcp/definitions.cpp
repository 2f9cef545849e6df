// definitions.cpp: MCP Tool definitions of the meta-tools, the scope a connector maps to, and
// the conditional tools/list answer (meta-tools, or the full list when search is off or empty).
#include <algorithm>
#include <set>

#include "mcp/internal.hpp"

namespace scout::mcp {
namespace detail {

Json parse_object(const std::string& text, Json fallback) {
    if (text.empty()) {
        return fallback;
    }
    Json parsed = Json::parse(text, nullptr, false);
    return parsed.is_object() ? parsed : fallback;
}

Json match_json(const Hit& hit) {
    return Json{{"name", hit.name},
                {"server", hit.server},
                {"tool", hit.tool},
                {"description", hit.description},
                {"inputSchema", parse_object(hit.input_schema, Json{{"type", "object"}})},
                {"annotations", parse_object(hit.annotations, Json::object())}};
}

bool in_scope(const Searcher& searcher, const SearchOptions& options, const ToolKey& key) {
    SearchOptions one = options;
    if (one.servers &&
        std::find(one.servers->begin(), one.servers->end(), key.server) == one.servers->end()) {
        return false;
    }
    one.servers = std::vector<std::string>{key.server};
    for (const Hit& hit : searcher.list_tools(one)) {
        if (hit.tool == key.tool) {
            return true;
        }
    }
    return false;
}

}  // namespace detail

Json tool_definition(const Hit& hit) {
    Json tool{{"name", hit.name},
              {"description", hit.description},
              {"inputSchema", detail::parse_object(hit.input_schema, Json{{"type", "object"}})}};
    if (!hit.title.empty()) {
        tool["title"] = hit.title;
    }
    Json annotations = detail::parse_object(hit.annotations, Json::object());
    if (!annotations.empty()) {
        tool["annotations"] = std::move(annotations);
    }
    return tool;
}

namespace {

detail::TemplateValues values_for(const MetaTools& tools, const Searcher& searcher) {
    const Connector& c = tools.connector();
    detail::TemplateValues v;
    v.environment = c.environment;
    if (!c.environment.empty() && c.bind_environment) {
        v.environment_note = " Only tools of the " + c.environment + " environment are searched.";
    }
    std::set<std::string> servers;
    for (const Hit& hit : searcher.list_tools(tools.scope_options(Scope::all_servers))) {
        ++v.tool_count;
        servers.insert(hit.server);
    }
    v.server_count = servers.size();
    return v;
}

}  // namespace

MetaTools::MetaTools(Connector connector) : connector_(std::move(connector)) {}

SearchOptions MetaTools::scope_options(Scope scope) const {
    SearchOptions options;
    options.mode = connector_.mode;
    options.exact_name_first = true;  // a query that names a tool gets that tool first
    options.servers = connector_.allowed_servers;
    if (scope == Scope::my_servers && connector_.my_servers) {
        if (!options.servers) {
            options.servers = connector_.my_servers;
        } else {
            std::vector<std::string> both;
            for (const auto& s : *connector_.my_servers) {
                if (std::find(options.servers->begin(), options.servers->end(), s) !=
                    options.servers->end()) {
                    both.push_back(s);
                }
            }
            options.servers = std::move(both);
        }
    }
    if (connector_.bind_environment && !connector_.environment.empty()) {
        options.environment = connector_.environment;
    }
    return options;
}

Json MetaTools::tool_search_definition(const Searcher& searcher) const {
    const detail::TemplateValues v = values_for(*this, searcher);
    const auto& t = connector_.templates;
    Json schema{{"type", "object"},
                {"properties",
                 {{"query", {{"type", "string"}, {"description", detail::render(t.query, v)}}},
                  {"top_k",
                   {{"type", "integer"},
                    {"minimum", 1},
                    {"maximum", SearchOptions::kMaxTopK},
                    {"default", SearchOptions::kDefaultTopK},
                    {"description", detail::render(t.top_k, v)}}},
                  {"alternatives",
                   {{"type", "array"},
                    {"items", {{"type", "string"}}},
                    {"maxItems", SearchOptions::kMaxAlternatives},
                    {"description", detail::render(t.alternatives, v)}}},

                  {"scope",
                   {{"type", "string"},
                    {"enum", {"my_servers", "all_servers"}},
                    {"default",
                     connector_.default_scope == Scope::my_servers ? "my_servers" : "all_servers"},
                    {"description", detail::render(t.scope, v)}}}}},
                {"required", {"query"}}};
    if (connector_.token_counter) {  // a budget needs the counter; without it, no such input
        schema["properties"]["max_tokens"] = Json{
            {"type", "integer"}, {"minimum", 1}, {"description", detail::render(t.max_tokens, v)}};
    }
    return Json{{"name", kToolSearch},
                {"title", "Search tools"},
                {"description", detail::render(t.tool_search, v)},
                {"inputSchema", std::move(schema)},
                {"annotations",
                 {{"title", "Search tools"},
                  {"readOnlyHint", true},
                  {"idempotentHint", true},
                  {"destructiveHint", false},
                  {"openWorldHint", false}}}};
}

Json MetaTools::execute_tool_definition(const Searcher& searcher) const {
    const detail::TemplateValues v = values_for(*this, searcher);
    const auto& t = connector_.templates;
    Json schema{
        {"type", "object"},
        {"properties",
         {{"tool_name", {{"type", "string"}, {"description", detail::render(t.tool_name, v)}}},
          {"server_name", {{"type", "string"}, {"description", detail::render(t.server_name, v)}}},
          {"arguments", {{"type", "object"}, {"description", detail::render(t.arguments, v)}}}}},
        {"required", {"tool_name", "server_name"}}};
    // Not read-only: the routed tool may change anything; its own annotations say what.
    return Json{{"name", kExecuteTool},
                {"title", "Execute a tool"},
                {"description", detail::render(t.execute_tool, v)},
                {"inputSchema", std::move(schema)},
                {"annotations",
                 {{"title", "Execute a tool"}, {"readOnlyHint", false}, {"openWorldHint", true}}}};
}

bool MetaTools::injects_meta_tools(const Searcher& searcher) const {
    if (!connector_.tool_search_enabled || searcher.size() == 0) {
        return false;
    }
    return !searcher.list_tools(scope_options(Scope::all_servers)).empty();
}

Json MetaTools::list_tools(const Searcher& searcher) const {
    Json tools = Json::array();
    if (injects_meta_tools(searcher)) {
        tools.push_back(tool_search_definition(searcher));
        tools.push_back(execute_tool_definition(searcher));
    } else {
        for (const Hit& hit : searcher.list_tools(scope_options(Scope::all_servers))) {
            tools.push_back(tool_definition(hit));
        }
    }
    return Json{{"tools", std::move(tools)}};
}

Json error_result(std::string_view message) {
    return Json{{"content", Json::array({Json{{"type", "text"}, {"text", std::string(message)}}})},
                {"isError", true}};
}

}  // namespace scout::mcp
