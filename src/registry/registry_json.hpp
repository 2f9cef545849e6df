// registry_json.hpp: the JSON forms of a replica's options and position, shared by the C ABI
// (scout/scout_registry.h documents them) and the Python module.
#pragma once

#include <nlohmann/json.hpp>

#include "scout/registry/registry.hpp"
#include "scout/status.hpp"

namespace scout::registry {

/// The "registry" object of the replica options ({"password_file", "connect_timeout_ms",
/// "statement_timeout_ms", "poll_interval_ms", "degraded_ttl_s"}, every key optional) into
/// `options`; invalid_argument naming the key for an unknown key or a value out of range.
[[nodiscard]] Status replica_options_from_json(const nlohmann::json& registry,
                                               ReplicaOptions& options);

/// {"applied_seq", "head_seq", "lag", the counters, "model_id", "degraded_served",
/// "degraded_expired", "last_error"}.
[[nodiscard]] nlohmann::json replica_stats_to_json(const ReplicaStats& stats);

}  // namespace scout::registry
