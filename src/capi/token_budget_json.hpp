// token_budget_json.hpp: the token budget ("max_tokens") of a search for the C ABI, the Python
// module and (through the C ABI) Node.js: one token counter per process, and the budgeted hits.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "scout/status.hpp"
#include "scout/token_budget.hpp"
#include "scout/token_counter.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// The cl100k_base counter, loaded on first use from TokenCounter::default_rank_dirs() (as
/// `scout tokens` finds it) and kept for the process. A failed load is not kept, so a later
/// call can succeed once the rank files are in place; its error names the folders looked in.
[[nodiscard]] Result<std::shared_ptr<const TokenCounter>> process_token_counter();

/// `hits` fitted to `max_tokens` (> 0) with the process counter (fit_to_budget: the first hit
/// is always kept whole; later ones are trimmed or left out).
[[nodiscard]] Result<BudgetedHits> budget_hits(const std::vector<Hit>& hits,
                                               std::size_t max_tokens);

}  // namespace scout::detail
