// search_json.hpp: `scout search --json` output, as a function the fuzzer can call.
#pragma once

#include <string>
#include <vector>

#include "scout/types.hpp"

namespace scout::cli {

/// The JSON document `scout search --json` prints for `result`: an indented envelope (query,
/// mode, degraded, catalog_empty, degraded_reason when degraded, notice when there is one) and one
/// compact line per match. Its size is linear in the size of the hits, whatever their schemas'
/// nesting; a schema that does not parse within the depth limit is given as a string. Invalid UTF-8
/// is replaced. With `alternatives` (multi-query search), the envelope lists them and each match
/// has "best_phrasing": 0 for the query, i for alternatives[i - 1].
[[nodiscard]] std::string search_json(const std::string& query,
                                      const SearchResult& result,
                                      const std::vector<std::string>& alternatives = {});

}  // namespace scout::cli
