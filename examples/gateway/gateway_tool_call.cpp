// gateway_tool_call.cpp: tools/call: the meta-tools, a backend tool called by its own name, the
// argument check against the tool's schema, the execution on its backend and what is learned.
#include <chrono>
#include <optional>
#include <string>

#include "scout/events.hpp"

#include "argument_check.hpp"
#include "bounded_json.hpp"
#include "direct_names.hpp"
#include "gateway.hpp"
#include "gateway_internal.hpp"
#include "printable.hpp"

namespace scout::gateway {
namespace {

bool is_error_result(const Json& result) {
    auto e = result.is_object() ? result.find("isError") : result.end();
    return result.is_object() && e != result.end() && e->is_boolean() && e->get<bool>();
}

/// While a thread answers a caller's tool_search: the catalog's fallback events it saw (-1 when
/// it is answering none). The catalog's searches also include the gateway's own (the doctor's,
/// run when a backend is indexed); only callers' searches count in /metrics.
thread_local int t_caller_fallbacks = -1;

/// The catalog calls emit() on the searching thread, so the thread-local tells whose search it is.
class CallerFallbackSink final : public EventSink {
public:
    void emit(const Event& event) override {
        if (t_caller_fallbacks >= 0 && event.name == "tool_search_fallback") {
            ++t_caller_fallbacks;
        }
    }
};

}  // namespace

std::shared_ptr<EventSink> gateway_detail::caller_fallback_sink() {
    return std::make_shared<CallerFallbackSink>();
}

Json Gateway::call_tool(const Json& id,
                        const Json& params,
                        const mcp::MetaTools& tools,
                        const std::shared_ptr<CancelToken>& cancel,
                        const CallerChannel* caller) {
    auto name = params.is_object() ? params.find("name") : params.end();
    if (!params.is_object() || name == params.end() || !name->is_string()) {
        return make_error(id, kInvalidParams, "tools/call needs params.name (a string)");
    }
    Json arguments = params.value("arguments", Json::object());
    const Searcher searcher = catalog_.searcher();
    std::string called = name->get<std::string>();
    // A backend tool called by its own name ("name" or "server/name") rather than through
    // execute_tool: the same execution, so the same scope, argument check, limits and learning.
    if (called != mcp::kToolSearch && called != mcp::kExecuteTool &&
        !tools.lookup(searcher, called, {})) {
        std::vector<ToolKey> found = direct_tools(tools, searcher, called);
        if (found.size() != 1) {
            std::vector<std::string> qualified;
            qualified.reserve(found.size());
            for (const ToolKey& k : found) {
                qualified.push_back(k.server + "/" + k.tool);
            }
            return make_error(id,
                              kInvalidParams,
                              found.empty() ? "Unknown tool '" + detail::clipped(called) +
                                                  "': no server in scope offers it; call "
                                                  "tool_search to find one"
                                            : ambiguous_name_message("tool", called, qualified));
        }
        arguments = Json{{"tool_name", found[0].tool},
                         {"server_name", found[0].server},
                         {"arguments", std::move(arguments)}};
        called = mcp::kExecuteTool;
    }
    const bool learn = meta_.connector().outcome_prior;
    // Arguments that break the tool's inputSchema never reach its backend: the call is answered
    // -32602 naming the field at fault (the executor says so through `invalid`).
    std::optional<std::string> invalid;
    auto executor = [this, &cancel, caller, learn, &invalid](const ToolKey& key,
                                                             const Json& args) -> Result<Json> {
        if (auto problem = schema_problem(key, args)) {
            invalid = "Invalid params for " + detail::clipped(key.server + "/" + key.tool, 120) +
                      ": " + *problem;
            return Status{Errc::invalid_argument, *invalid};
        }
        Result<Json> result = execute(key, args, cancel, caller);
        if (learn) {
            outcomes_.record(catalog_, key, result && !result->value("isError", false));
        }
        return result;
    };
    const bool search = called == mcp::kToolSearch;
    t_caller_fallbacks = search ? 0 : -1;
    const auto began = std::chrono::steady_clock::now();
    Json answer = tools.call_tool(searcher, called, arguments, executor);
    const bool fell_back = t_caller_fallbacks > 0;
    t_caller_fallbacks = -1;
    if (invalid) {
        return make_error(id, kInvalidParams, *invalid);
    }
    if (search) {
        metrics_.record_search(
            std::chrono::steady_clock::now() - began, is_error_result(answer), fell_back);
        if (learn) {
            outcomes_.remember(arguments, answer);
        }
    }
    return make_result(id, std::move(answer));
}

std::vector<ToolKey> Gateway::direct_tools(const mcp::MetaTools& tools,
                                           const Searcher& searcher,
                                           const std::string& name) {
    std::vector<ToolKey> found;
    for (const auto& b : backends_in_scope(tools)) {
        const std::string& server = b->name();
        // "server/name" names one server's tool; a bare name may be any server's.
        const bool prefixed = name.size() > server.size() + 1 &&
                              name.compare(0, server.size(), server) == 0 &&
                              name[server.size()] == '/';
        if (prefixed) {
            if (auto hit = tools.lookup(searcher, name.substr(server.size() + 1), server)) {
                return {ToolKey{hit->server, hit->tool}};
            }
        }
        if (auto hit = searcher.find(server, name);
            hit && tools.lookup(searcher, hit->tool, hit->server)) {  // lookup: the scope rule
            found.push_back(ToolKey{hit->server, hit->tool});
        }
    }
    return found;
}

std::optional<std::string> Gateway::schema_problem(const ToolKey& key, const Json& arguments) {
    const auto tool = catalog_.searcher().find(key.server, key.tool);
    if (!tool || tool->input_schema.empty()) {
        return std::nullopt;  // unknown here (the backend answers) or no schema: nothing to hold
    }
    auto schema = detail::parse_json(tool->input_schema);
    if (!schema) {
        return std::nullopt;
    }
    return check_arguments(*schema, arguments);
}

Result<Json> Gateway::execute(const ToolKey& key,
                              const Json& arguments,
                              const std::shared_ptr<CancelToken>& cancel,
                              const CallerChannel* caller) {
    // Held to the end of the call: a reload that removes the backend meanwhile stops it after.
    if (const auto b = backend(key.server)) {
        auto result = b->call_tool(key.tool, arguments, cancel, caller);
        metrics_.record_call(key.server, key.tool, !result || is_error_result(*result));
        return result;
    }
    return Status{Errc::not_found, "no backend named '" + detail::printable(key.server) + "'"};
}

}  // namespace scout::gateway
