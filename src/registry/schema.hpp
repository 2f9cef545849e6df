// schema.hpp: the registry's tables, created and migrated by scout, and the version check every
// other statement starts with.
#pragma once

#include "scout/registry/registry.hpp"
#include "scout/status.hpp"

#include "registry/pg_connection.hpp"

namespace scout::detail {

/// The NOTIFY channel of the change feed; a payload is one sequence number.
inline constexpr const char* kFeedChannel = "scout_changes";

/// Creates or migrates the schema to registry::kSchemaVersion in one transaction.
/// `target` below the current version is for tests of a migration from an older schema.
[[nodiscard]] Status migrate(PgConnection& conn, int target = registry::kSchemaVersion);
/// ok when the schema is exactly registry::kSchemaVersion; otherwise says what to do.
[[nodiscard]] Status check_schema(PgConnection& conn);
/// The schema's version, 0 when the registry has none.
[[nodiscard]] Result<int> schema_version(PgConnection& conn);

}  // namespace scout::detail
