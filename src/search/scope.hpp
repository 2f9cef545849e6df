// scope.hpp: the caller's scope (servers, environment) as the set of tools a search may return.
// Both branches take it, so top-k is chosen among allowed tools only (SCOUT's filter inside
// retrieval, not after it).
#pragma once

#include <optional>

#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"
#include "util/bitset.hpp"

namespace scout::detail {

/// The allowed tools of a request, or nullopt when the request has no scope (all allowed).
[[nodiscard]] std::optional<Bitset> scope_filter(const Snapshot& snap,
                                                 const SearchOptions& options);

}  // namespace scout::detail
