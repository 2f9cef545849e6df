// scope.cpp: see scope.hpp. Servers own contiguous id ranges, so admitting one is a range set.
#include "search/scope.hpp"

namespace scout::detail {

std::optional<Bitset> scope_filter(const Snapshot& snap, const SearchOptions& options) {
    if (!options.servers && !options.environment) {
        return std::nullopt;
    }
    Bitset allowed(snap.tools.size());
    const auto admit = [&](const ServerRecord& server) {
        if (!options.environment || server.environment == *options.environment) {
            allowed.set_range(server.first_tool, server.end_tool);
        }
    };
    if (options.servers) {
        for (const std::string& name : *options.servers) {
            if (auto it = snap.servers->index.find(name); it != snap.servers->index.end()) {
                admit(snap.servers->records[it->second]);
            }
        }
    } else {
        for (const ServerRecord& server : snap.servers->records) {
            admit(server);
        }
    }
    return allowed;
}

}  // namespace scout::detail
