// caller_scope.hpp: what one authenticated caller may see and run, whichever way it proved who
// it is (a static token of the auth file, or a JWT).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scout/status.hpp"

namespace scout::gateway {

/// A token bucket's parameters: `requests_per_second` on average, `burst` at once.
struct RateLimit {
    double requests_per_second = 0;
    double burst = 1;
};

/// What one authenticated caller may see and run.
struct CallerScope {
    std::string name;
    std::optional<std::vector<std::string>> servers;  ///< nullopt: every server
    std::string environment;                          ///< empty: the process-wide one
    std::optional<RateLimit> rate;                    ///< nullopt: the gateway's default
};

/// A "rate" object of the auth file, {"requests_per_second": R > 0, "burst": B >= 1 (default
/// max(1, R))}; errors name `where` and the member.
[[nodiscard]] Status parse_rate_limit(const std::string& where,
                                      const nlohmann::json& value,
                                      RateLimit& out);

}  // namespace scout::gateway
