// exact_names.cpp: see exact_names.hpp.
#include "search/exact_names.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "search/hits.hpp"

namespace scout::detail {
namespace {

bool is_wrapping(char c) {
    return c == ' ' || c == '`' || c == '"';
}

}  // namespace

std::vector<ToolId> exact_name_matches(const Snapshot& snap,
                                       std::string_view query,
                                       const Bitset* filter) {
    while (!query.empty() && is_wrapping(query.front())) {
        query.remove_prefix(1);
    }
    while (!query.empty() && is_wrapping(query.back())) {
        query.remove_suffix(1);
    }
    std::vector<ToolId> out;
    if (query.empty() || query.find(' ') != std::string_view::npos) {
        return out;
    }
    const auto allowed = [&](ToolId id) { return filter == nullptr || filter->test(id); };
    const ToolsByName& by_plain = snap.names->by_plain;
    if (const ToolId first = by_plain.first(query); first != ToolsByName::kEnd) {
        for (ToolId id = first; id != ToolsByName::kEnd; id = by_plain.next(id)) {
            if (allowed(id)) {
                out.push_back(id);
            }
        }
    } else if (auto id = resolve_enhanced_name(snap, query); id && allowed(*id)) {
        out.push_back(*id);
    }
    return out;
}

void put_exact_first(const Snapshot& snap,
                     const std::vector<ToolId>& exact,
                     std::size_t k,
                     std::vector<Hit>& hits) {
    std::vector<Hit> front;
    for (ToolId id : exact) {
        auto it = std::find_if(hits.begin(), hits.end(), [&](const Hit& h) { return h.id == id; });
        if (it != hits.end()) {
            front.push_back(std::move(*it));
            hits.erase(it);
        } else {
            front.push_back(make_hit(snap, id));
        }
    }
    hits.insert(
        hits.begin(), std::make_move_iterator(front.begin()), std::make_move_iterator(front.end()));
    if (hits.size() > k) {
        hits.resize(k);
    }
}

}  // namespace scout::detail
