// jwt_config.hpp: the auth file's "jwt" section, which lets callers prove who they are with a
// JWT instead of a static token:
//   "jwt": {"issuer": "https://id.example.com/", "audience": "scout-gateway",
//           "jwks_file": "jwks.json" | "jwks_url": "https://id.example.com/jwks.json",
//           "refresh_seconds": 3600, "fetch_timeout_seconds": 10 (jwks_url only),
//           "clock_skew_seconds": 60, "scopes_claim": "scope",
//           "server_scope_prefix": "server:", "caller_prefix": "jwt:",
//           "environment_claim": "env" | "environment": "prod",
//           "rate": {"requests_per_second": 5, "burst": 10}}
// Every key is checked like the rest of the auth file: an unknown key or a wrong type is an error
// naming jwt.<key>.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "jwt.hpp"

namespace scout::gateway {

/// The rules of a "jwt" section. Reads no file and fetches nothing: jwks_file and jwks_url are
/// returned as written.
[[nodiscard]] Result<JwtRules> parse_jwt_rules(const nlohmann::json& section);

}  // namespace scout::gateway
