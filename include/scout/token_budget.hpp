// token_budget.hpp: fits ranked hits into a budget of LLM tokens, counted with the real BPE
// counter. Gateways use it to bound what one tool search costs the model's context.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scout/export.hpp"
#include "scout/token_counter.hpp"
#include "scout/types.hpp"

namespace scout {

struct BudgetOptions {
    /// Most tokens the hits may take, as rendered by hit_json(); 0 = no budget.
    std::size_t max_tokens = 0;
    /// A long description is cut to about this many tokens (at a word boundary, marked "...").
    std::size_t trimmed_description_tokens = 40;
};

/// A hit as it fits the budget, with what was shortened.
struct BudgetedHit {
    Hit hit;                           ///< description / input_schema as returned (maybe trimmed)
    bool description_trimmed = false;  ///< cut to trimmed_description_tokens
    bool schema_trimmed = false;       ///< descriptions, titles, examples and defaults removed
    std::size_t tokens = 0;            ///< tokens of hit_json(hit) as returned
};

struct BudgetedHits {
    std::vector<BudgetedHit> hits;
    std::size_t tokens = 0;   ///< sum of the hits' tokens
    std::size_t omitted = 0;  ///< ranked hits left out because they did not fit
};

/// The compact JSON of one hit as a search answer carries it: {"annotations", "description",
/// "inputSchema", "name", "server", "tool"} (keys sorted; a missing schema is
/// {"type":"object"}); with "trimmed": [...] when something was shortened.
[[nodiscard]] SCOUT_API std::string hit_json(const Hit& hit,
                                             bool description_trimmed = false,
                                             bool schema_trimmed = false);

/// Keeps the leading hits that fit `options.max_tokens`, in rank order. The first hit is always
/// kept complete, even over the budget. Each later hit is kept whole if it fits, else with its
/// description trimmed (when long), else with its schema trimmed too; the first hit that fits in
/// no form ends the list. No budget (0) keeps every hit whole. Deterministic.
[[nodiscard]] SCOUT_API BudgetedHits fit_to_budget(const std::vector<Hit>& hits,
                                                   const TokenCounter& counter,
                                                   const BudgetOptions& options);

}  // namespace scout
