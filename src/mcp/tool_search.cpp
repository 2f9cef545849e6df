// tool_search.cpp: the tool_search handler. Validates the arguments, maps the scope to search
// options, runs the hybrid search (whose exact-name rule puts a tool named by the whole query
// first, within scope), and answers with a text block plus the same matches as structuredContent.
#include <algorithm>
#include <cmath>

#include "mcp/internal.hpp"

namespace scout::mcp {
namespace {

Result<std::size_t> read_top_k(const Json& args) {
    auto it = args.find("top_k");
    if (it == args.end() || it->is_null()) {
        return SearchOptions::kDefaultTopK;
    }
    if (!it->is_number()) {
        return Status{Errc::invalid_argument, "top_k must be an integer"};
    }
    const double k = it->get<double>();
    if (!std::isfinite(k)) {
        return Status{Errc::invalid_argument, "top_k must be an integer"};
    }
    return static_cast<std::size_t>(std::clamp(k, 1.0, double(SearchOptions::kMaxTopK)));
}

}  // namespace

Json MetaTools::tool_search(const Searcher& searcher, const Json& args) const {
    if (!args.is_object()) {
        return error_result("tool_search needs an arguments object with a \"query\" string.");
    }
    auto q = args.find("query");
    if (q == args.end() || !q->is_string() || q->get_ref<const std::string&>().empty()) {
        return error_result("tool_search needs a non-empty \"query\" string.");
    }
    const std::string& query = q->get_ref<const std::string&>();
    auto top_k = read_top_k(args);
    if (!top_k) {
        return error_result(top_k.status().message());
    }
    Scope scope = connector_.default_scope;
    if (auto s = args.find("scope"); s != args.end() && !s->is_null()) {
        if (*s == "my_servers") {
            scope = Scope::my_servers;
        } else if (*s == "all_servers") {
            scope = Scope::all_servers;
        } else {
            return error_result("scope must be \"my_servers\" or \"all_servers\".");
        }
    }
    SearchOptions options = scope_options(scope);
    options.top_k = *top_k;

    auto result = searcher.search(query, options);
    if (!result) {
        return error_result("tool_search failed: " + result.status().message());
    }
    Json matches = Json::array();
    for (const Hit& hit : result->hits) {
        matches.push_back(detail::match_json(hit));
    }
    Json structured{{"query", query}, {"matches", std::move(matches)}};
    Json out{{"content", Json::array({Json{{"type", "text"}, {"text", structured.dump()}}})},
             {"structuredContent", structured}};
    out["isError"] = false;
    return out;
}

}  // namespace scout::mcp
