// outcome_memory.cpp: see outcome_memory.hpp.
#include "outcome_memory.hpp"

namespace scout::gateway {

void OutcomeMemory::remember(const mcp::Json& arguments, const mcp::Json& answer) {
    if (!arguments.is_object() || !arguments.contains("query") || !arguments["query"].is_string() ||
        !answer.is_object() || !answer.contains("structuredContent")) {
        return;
    }
    const mcp::Json& content = answer["structuredContent"];
    if (!content.is_object() || !content.contains("matches") || !content["matches"].is_array()) {
        return;
    }
    Search search{arguments["query"].get<std::string>(), {}};
    for (const mcp::Json& m : content["matches"]) {
        if (m.is_object() && m.contains("server") && m["server"].is_string() &&
            m.contains("tool") && m["tool"].is_string()) {
            search.offered.push_back(
                {m["server"].get<std::string>(), m["tool"].get<std::string>()});
        }
    }
    std::lock_guard lock(mutex_);
    searches_.push_back(std::move(search));
    if (searches_.size() > kSearches) {
        searches_.pop_front();
    }
}

std::optional<std::string> OutcomeMemory::query_for(const ToolKey& tool) const {
    std::lock_guard lock(mutex_);
    for (auto it = searches_.rbegin(); it != searches_.rend(); ++it) {
        for (const ToolKey& k : it->offered) {
            if (k == tool) {
                return it->query;
            }
        }
    }
    return std::nullopt;
}

void OutcomeMemory::record(Catalog& catalog, const ToolKey& tool, bool succeeded) const {
    if (const std::optional<std::string> query = query_for(tool)) {
        const Outcome outcome = succeeded ? Outcome::success : Outcome::failure;
        (void)(recorder_ ? recorder_(*query, tool, outcome)
                         : catalog.record_outcome(*query, tool, outcome));
    }
}

}  // namespace scout::gateway
