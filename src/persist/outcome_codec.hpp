// outcome_codec.hpp: the OUTC section of an index file (docs/FORMAT.md): the catalog's outcome
// prior (learning from executions) as little-endian binary, and back with every bound checked.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "scout/status.hpp"

#include "outcomes/outcome_prior.hpp"

namespace scout::detail {

inline constexpr std::uint32_t kOutcomeSectionVersion = 1;

[[nodiscard]] std::string encode_outcomes(const OutcomePrior& prior);

/// corrupt for truncated bytes, counts over OutcomePrior::limits(), keys that are not UTF-8 or
/// too long, negative or non-finite counts, ticks from the future, and trailing bytes.
[[nodiscard]] Result<OutcomePrior> decode_outcomes(std::span<const std::uint8_t> bytes);

}  // namespace scout::detail
