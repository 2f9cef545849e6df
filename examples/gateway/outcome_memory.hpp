// outcome_memory.hpp: learning from executions in the gateway. execute_tool carries no query,
// so the gateway remembers its recent tool_search answers and, when a tool it offered is then
// executed, tells the catalog how that went (Catalog::record_outcome), with that search's query;
// a registry replica records it instead, for the whole fleet (Replica::record_outcome).
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/mcp/meta_tools.hpp"

namespace scout::gateway {

/// Thread-safe; bounded to the last kSearches searches.
class OutcomeMemory {
public:
    static constexpr std::size_t kSearches = 64;
    /// Where outcomes go instead of the catalog (a registry replica's record_outcome).
    using Recorder = std::function<Status(std::string_view query, const ToolKey&, Outcome)>;

    /// Set before the gateway starts; empty: Catalog::record_outcome.
    void set_recorder(Recorder recorder) { recorder_ = std::move(recorder); }

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
    Recorder recorder_;
    mutable std::mutex mutex_;
    std::deque<Search> searches_;  ///< newest last
};

}  // namespace scout::gateway
