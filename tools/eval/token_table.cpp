// token_table.cpp: tools/list and tool_search result JSON, and their token counts.
#include "eval/token_table.hpp"

#include <nlohmann/json.hpp>

#include "document/enhanced_name.hpp"

namespace scout::eval {
namespace {

using nlohmann::json;

json schema_or_default(const std::string& text) {
    json schema = text.empty() ? json() : json::parse(text, nullptr, /*allow_exceptions=*/false);
    return schema.is_object() ? schema : json{{"type", "object"}};
}

std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string full_tools_list_json(const CatalogSpec& catalog) {
    std::vector<ToolKey> keys;
    std::vector<const ToolSpec*> specs;
    for (const ServerSpec& s : catalog.servers) {
        if (s.status != ServerStatus::active) {
            continue;
        }
        for (const ToolSpec& t : s.tools) {
            keys.push_back({s.name, t.name});
            specs.push_back(&t);
        }
    }
    const detail::EnhancedNames names(keys);
    json tools = json::array();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        tools.push_back({{"name", names.name(i)},
                         {"description", specs[i]->description},
                         {"inputSchema", schema_or_default(specs[i]->input_schema)}});
    }
    return dump(json{{"tools", tools}});
}

std::string search_result_json(const SearchResult& result) {
    json matches = json::array();
    for (const Hit& h : result.hits) {
        matches.push_back({{"name", h.name},
                           {"server", h.server},
                           {"tool", h.tool},
                           {"description", h.description},
                           {"inputSchema", schema_or_default(h.input_schema)}});
    }
    return dump(json{{"matches", matches}});
}

Result<TokenRow> measure_tokens(const CatalogSpec& catalog,
                                const Searcher& searcher,
                                const TokenCounter& counter,
                                const std::string& meta_definitions_json,
                                const std::vector<std::string>& queries,
                                const SearchOptions& options) {
    TokenRow row;
    for (const ServerSpec& s : catalog.servers) {
        if (s.status != ServerStatus::active) {
            continue;
        }
        ++row.servers;
        row.tools += s.tools.size();
    }
    row.full_list = counter.count(full_tools_list_json(catalog));
    row.meta_definitions = counter.count(meta_definitions_json);
    double total = 0;
    for (const std::string& q : queries) {
        auto result = searcher.search(q, options);
        if (!result) {
            continue;
        }
        total += static_cast<double>(counter.count(search_result_json(result.value())));
        ++row.sampled_queries;
    }
    if (row.sampled_queries == 0) {
        return Status{Errc::invalid_argument, "token table: no query could be searched"};
    }
    row.mean_result = total / static_cast<double>(row.sampled_queries);
    return row;
}

}  // namespace scout::eval
