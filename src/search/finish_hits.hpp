// finish_hits.hpp: the last steps of every search, single or multi-query: the tools the query
// names exactly first, then the automatic cut, then at most k hits.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "scout/options.hpp"
#include "scout/types.hpp"

#include "snapshot/snapshot.hpp"
#include "util/bitset.hpp"

namespace scout::detail {

/// Puts the allowed tools (`filter`, null for all) whose names `query` names exactly first
/// (options.exact_name_first), cuts the list where its scores fall away (options.auto_k; the
/// exact names alone when there are any) and keeps at most `k` hits.
void finish_hits(const Snapshot& snap,
                 std::string_view query,
                 const SearchOptions& options,
                 std::size_t k,
                 const Bitset* filter,
                 std::vector<Hit>& hits);

}  // namespace scout::detail
