// snapshot_layout.hpp: whether two staged catalogs lay out the same snapshot, so a build can keep
// the previous snapshot's tool records, server records and names and only refresh tool texts.
#pragma once

#include "snapshot/staged_catalog.hpp"

namespace scout::detail {

/// True when `a` and `b` have the same servers (name, status, description, category,
/// environment) with the same tool names: the same ToolIds, server records and enhanced names.
/// Tool contents may differ.
[[nodiscard]] bool same_layout(const StagedCatalog& a, const StagedCatalog& b) noexcept;

}  // namespace scout::detail
