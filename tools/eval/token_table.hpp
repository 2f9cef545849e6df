// token_table.hpp: the context cost of exposing a catalog to an LLM: every tool in one MCP
// tools/list versus the two meta-tools plus one tool_search result.
#pragma once

#include <string>
#include <vector>

#include "scout/searcher.hpp"
#include "scout/token_counter.hpp"
#include "scout/types.hpp"

namespace scout::eval {

/// The MCP tools/list result a client connected to every ACTIVE server of `catalog` through a
/// flattening gateway receives: {"tools": [{"name", "description", "inputSchema"}...]} with
/// enhanced names (unique across servers), compact JSON.
[[nodiscard]] std::string full_tools_list_json(const CatalogSpec& catalog);

/// The text of a tool_search result for `result` (what the meta-tool returns to the model):
/// {"matches": [{"name", "server", "tool", "description", "inputSchema"}...]}, compact JSON.
[[nodiscard]] std::string search_result_json(const SearchResult& result);

struct TokenRow {
    std::size_t servers = 0;
    std::size_t tools = 0;
    std::size_t full_list = 0;         ///< tokens of full_tools_list_json
    std::size_t meta_definitions = 0;  ///< tokens of the meta-tool definitions
    double mean_result = 0;            ///< mean tokens of one tool_search result
    std::size_t sampled_queries = 0;
    [[nodiscard]] double meta_total() const {
        return static_cast<double>(meta_definitions) + mean_result;
    }
    /// 1 - meta_total / full_list.
    [[nodiscard]] double reduction() const {
        return full_list == 0 ? 0.0 : 1.0 - meta_total() / static_cast<double>(full_list);
    }
};

/// Counts both sides for one catalog and encoding. `meta_definitions_json` is the tools/list a
/// client sees with the meta-tools; `queries` are searched with `options` (failed searches are
/// skipped; invalid_argument if none succeeds or `queries` is empty).
[[nodiscard]] Result<TokenRow> measure_tokens(const CatalogSpec& catalog,
                                              const Searcher& searcher,
                                              const TokenCounter& counter,
                                              const std::string& meta_definitions_json,
                                              const std::vector<std::string>& queries,
                                              const SearchOptions& options);

}  // namespace scout::eval
