// snapshot_layout.hpp: whether two staged catalogs lay out the same snapshot, so a build can keep
// the previous snapshot's tool records, server records and names and only refresh tool texts
// (and the records of servers described anew).
#pragma once

#include "snapshot/staged_catalog.hpp"

namespace scout::detail {

/// True when `a` and `b` have the same servers (name, status) with the same tool names: the same
/// ToolIds, server record positions and enhanced names. Tool contents and the servers'
/// description, category and environment may differ.
[[nodiscard]] bool same_layout(const StagedCatalog& a, const StagedCatalog& b) noexcept;

}  // namespace scout::detail
