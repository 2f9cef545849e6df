// jwt_refusal_log.hpp: the rate-limited log line of refused JWTs.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace scout::gateway {

/// Why JWTs are refused, logged at most once a second with how many refusals the line stands
/// for, so a flood of bad tokens cannot flood the log. The token itself is never logged.
class JwtRefusalLog {
public:
    void note(const std::string& why);

private:
    std::mutex mutex_;
    std::chrono::steady_clock::time_point last_{};
    std::uint64_t pending_ = 0;
};

}  // namespace scout::gateway
