// snapshot_layout.cpp: see snapshot_layout.hpp.
#include "snapshot/snapshot_layout.hpp"

#include <algorithm>

namespace scout::detail {

bool same_layout(const StagedCatalog& a, const StagedCatalog& b) noexcept {
    using Server = std::shared_ptr<const StagedServer>;
    return a.same_entries(b, [](const Server& x, const Server& y) {
        if (x == y) {
            return true;  // one unedited server
        }
        const ServerSpec& p = x->meta;
        const ServerSpec& q = y->meta;
        // A server described anew keeps its ToolIds: the build refreshes its record.
        if (p.name != q.name || p.status != q.status || x->tools.size() != y->tools.size()) {
            return false;
        }
        return std::equal(
            x->tools.begin(), x->tools.end(), y->tools.begin(), [](const auto& s, const auto& t) {
                return s.first == t.first;
            });
    });
}

}  // namespace scout::detail
