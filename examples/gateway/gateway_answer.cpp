// gateway_answer.cpp: the answer to one request of any caller (stdio or an HTTP session) in
// either protocol era: initialize, ping, tools/list and the routing of the other methods.
#include <algorithm>
#include <string>

#include "gateway.hpp"
#include "modern_protocol.hpp"
#include "printable.hpp"

namespace scout::gateway {

Json Gateway::list_result(const mcp::MetaTools& tools) {
    const Searcher searcher = catalog_.searcher();
    Json list = tools.list_tools(searcher);
    const auto pinned_now = pinned();
    const PinnedTools& pinned_tools = *pinned_now;
    if (pinned_tools.empty() || !tools.injects_meta_tools(searcher)) {
        return list;  // the full list already holds every tool
    }
    for (const Hit& hit : searcher.list_tools(tools.scope_options(mcp::Scope::all_servers))) {
        const bool pinned =
            std::find(pinned_tools.servers.begin(), pinned_tools.servers.end(), hit.server) !=
                pinned_tools.servers.end() ||
            std::any_of(
                pinned_tools.tools.begin(), pinned_tools.tools.end(), [&hit](const ToolKey& k) {
                    return k.server == hit.server && k.tool == hit.tool;
                });
        if (pinned) {
            list["tools"].push_back(mcp::tool_definition(hit));
        }
    }
    return list;
}

Json Gateway::answer_modern(const Message& m,
                            const mcp::MetaTools& tools,
                            const std::shared_ptr<CancelToken>& cancel,
                            bool per_caller) {
    if (auto error = modern::check_envelope(m.body)) {
        return modern::error_response(m.id, *error);
    }
    if (!modern::serves_method(m.method) || m.method == "subscriptions/listen") {
        return make_error(m.id,
                          kMethodNotFound,
                          "Method not found: " + detail::clipped(m.method) +
                              " (not served in protocol revision " + modern::kProtocolVersion +
                              ")");
    }
    if (m.method == "server/discover") {
        // Resource subscriptions and logging/setLevel are passed through in the legacy era only.
        Json init = initialize(Json::object());
        init["capabilities"]["resources"].erase("subscribe");
        init["capabilities"].erase("logging");
        return make_result(m.id, modern::discover_result(init, per_caller));
    }
    Json response = answer(m, tools, cancel);
    if (auto result = response.find("result"); result != response.end()) {
        modern::finish_result(m.method, *result, per_caller);
    }
    return response;
}
Json Gateway::answer(const Message& m,
                     const mcp::MetaTools& tools,
                     const std::shared_ptr<CancelToken>& cancel,
                     const std::string& client,
                     CallerChannel* caller) {
    if (m.method == "tools/list") {
        wait_started();
        return make_result(m.id, list_result(tools));
    }
    if (m.method == "tools/call") {
        wait_started();
        if (caller != nullptr) {  // the level this caller set, if any, filters its messages
            std::lock_guard lock(log_mutex_);
            auto it = log_clients_.find(client);
            caller->log_severity =
                it == log_clients_.end() ? -1 : log_severity(Json(it->second.level));
        }
        return call_tool(m.id, m.body.value("params", Json::object()), tools, cancel, caller);
    }
    if (m.method.rfind("resources/", 0) == 0 || m.method.rfind("prompts/", 0) == 0) {
        wait_started();
        return pass_through(m, tools, cancel, client);
    }
    if (m.method == "logging/setLevel") {
        return set_logging_level(m, tools, cancel, client);
    }
    if (m.method == "completion/complete") {
        wait_started();
        return complete(m, tools, cancel);
    }
    if (m.method == "initialize") {
        // Each HTTP session initializes on its own; the stdio flags are not this caller's.
        return make_result(m.id, initialize(m.body.value("params", Json::object())));
    }
    return handle_request(m);
}
Json Gateway::handle_request(const Message& m) {
    const Json params = m.body.value("params", Json::object());
    if (m.method == "initialize") {
        initialize_seen_.store(true);
        stdio_sampling_.store(declares_capability(params, "sampling"));
        stdio_elicitation_.store(declares_capability(params, "elicitation"));
        return make_result(m.id, initialize(params));
    }
    if (m.method == "ping") {
        return make_result(m.id, Json::object());
    }
    return make_error(m.id, kMethodNotFound, "Method not found: " + detail::clipped(m.method));
}

Json Gateway::initialize(const Json& params) {
    std::string version = kSupportedProtocolVersions[0];
    if (auto asked = params.is_object() ? params.find("protocolVersion") : params.end();
        params.is_object() && asked != params.end()) {
        for (const char* v : kSupportedProtocolVersions) {
            if (*asked == v) {
                version = v;
            }
        }
    }
    return Json{{"protocolVersion", version},
                {"capabilities",
                 {{"tools", {{"listChanged", true}}},
                  // Advertised whatever the backends offer: a backend without it refuses.
                  {"resources", {{"subscribe", true}}},
                  {"prompts", Json::object()},
                  // completion/complete goes to the server that owns the prompt or template.
                  {"completions", Json::object()},
                  // logging/setLevel goes to the backends that log; their messages come back.
                  {"logging", Json::object()}}},
                {"serverInfo",
                 {{"name", "scout-gateway"}, {"title", "scout MCP gateway"}, {"version", "0.1.0"}}},
                {"instructions",
                 "This gateway fronts many MCP servers. Use tool_search to find a tool, then "
                 "execute_tool with the exact tool_name and server_name it returns."}};
}

}  // namespace scout::gateway
