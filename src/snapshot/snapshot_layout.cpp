// snapshot_layout.cpp: see snapshot_layout.hpp.
#include "snapshot/snapshot_layout.hpp"

namespace scout::detail {

bool same_layout(const StagedCatalog& a, const StagedCatalog& b) noexcept {
    if (a.size() != b.size()) {
        return false;
    }
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
        if (x->first != y->first) {
            return false;
        }
        if (x->second == y->second) {
            continue;  // one unedited server
        }
        const ServerSpec& p = x->second->meta;
        const ServerSpec& q = y->second->meta;
        if (p.name != q.name || p.status != q.status || p.description != q.description ||
            p.category != q.category || p.environment != q.environment ||
            x->second->tools.size() != y->second->tools.size()) {
            return false;
        }
        for (auto s = x->second->tools.begin(), t = y->second->tools.begin();
             s != x->second->tools.end();
             ++s, ++t) {
            if (s->first != t->first) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace scout::detail
