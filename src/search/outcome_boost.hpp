// outcome_boost.hpp: learning from executions at search time. The returned hits are re-ranked
// by score + kMaxOutcomeBoost x endorsement x the top score, where the endorsement (in [0, 1))
// comes from the catalog's outcome prior for this query's words. Exact-name hits stay first.
#pragma once

#include <string_view>
#include <vector>

#include "scout/types.hpp"

#include "outcomes/outcome_prior.hpp"
#include "snapshot/snapshot.hpp"

namespace scout::detail {

/// Re-ranks `hits` in place (stable; nothing changes when the prior endorses none of them).
void apply_outcome_prior(const Snapshot& snap,
                         const OutcomePrior& prior,
                         std::string_view query,
                         const SearchOptions& options,
                         std::vector<Hit>& hits);

}  // namespace scout::detail
