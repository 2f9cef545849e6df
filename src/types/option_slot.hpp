// option_slot.hpp: typed access to the member behind each row of the option table, for code that
// reads and writes options in its own encoding (the index file's JSON).
#pragma once

#include <cstddef>
#include <cstdint>
#include <variant>

#include "scout/options.hpp"

namespace scout::detail {

/// A u64 member (dense.seed), apart from size_t ones, which may be the same type.
struct WideSlot {
    std::uint64_t* value;
};

using OptionSlot =
    std::variant<bool*, std::size_t*, WideSlot, float*, double*, DenseIndexKind*, FusionMethod*>;

/// The member of `options` that option_fields()[index] describes.
[[nodiscard]] OptionSlot option_slot(CatalogOptions& options, std::size_t index);

}  // namespace scout::detail
