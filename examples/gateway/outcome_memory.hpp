// outcome_memory.hpp: learning from executions in the gateway. execute_tool carries no query,
// so the gateway remembers its recent tool_search answers and, when a tool it offered is then
// executed, tells the catalog how that went (Catalog::record_outcome), with that search's query.
#pragma once

#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"

namespace scout::gateway {

/// Thread-safe; bounded to the last kSearches searches.
class OutcomeMemory {
public:
    static constexpr std::size_t kSearches = 64;

    /// A tool_search call: its arguments and the answer the client got.
    void remember(const mcp::Json& arguments, const mcp::Json& answer);
    /// The query of the latest remembered search that offered `tool`, if any.
    [[nodiscard]] std::optional<std::string> query_for(const ToolKey& tool) const;
    /// After execute_tool: records the outcome of `tool` (an error status, or a result with
    /// isError, is a failure) when a remembered search offered it. Errors are ignored: the
    /// prior is a hint and the call's answer must not depend on it.
    void record(Catalog& catalog, const ToolKey& tool, bool succeeded) const;

private:
    struct Search {
        std::string query;
        std::vector<ToolKey> offered;
    };
    mutable std::mutex mutex_;
    std::deque<Search> searches_;  ///< newest last
};

}  // namespace scout::gateway
