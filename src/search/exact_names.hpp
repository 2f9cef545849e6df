// exact_names.hpp: a query that is exactly a tool's name. Agents often search for a name they
// were given; those tools go first, ahead of the ranked results.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"
#include "util/bitset.hpp"

namespace scout::detail {

/// Tools the whole query names exactly (quotes, backticks and spaces around it ignored): an
/// enhanced name, else a plain tool name; only those allowed by `filter` (null: all).
[[nodiscard]] std::vector<ToolId> exact_name_matches(const Snapshot& snap,
                                                     std::string_view query,
                                                     const Bitset* filter);

/// Moves the `exact` tools to the front of `hits` (materializing those not ranked), keeping the
/// ranked order of everything else, and cuts the list to k.
void put_exact_first(const Snapshot& snap,
                     const std::vector<ToolId>& exact,
                     std::size_t k,
                     std::vector<Hit>& hits);

}  // namespace scout::detail
