// rate_limiter.hpp: a token bucket per caller (the auth file's "rate", or --rate-limit), taken
// before any work on a request: over it, the HTTP transport answers 429 with Retry-After.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "auth.hpp"

namespace scout::gateway {

/// Thread-safe. Memory is bounded: beyond max_keys buckets, the full ones (which behave as if
/// they were absent) are dropped.
class RateLimiter {
public:
    using Clock = std::chrono::steady_clock;

    explicit RateLimiter(std::size_t max_keys = 65536) : max_keys_(max_keys) {}

    /// 0 when `key` may go at `now` (one token is taken), else the whole seconds, at least 1,
    /// until its bucket holds a token again. A bucket starts full (`rate.burst` tokens) and
    /// refills at `rate.requests_per_second`; the rate in force is the one given with each call,
    /// so a reloaded auth file applies at once.
    [[nodiscard]] std::uint64_t acquire(const std::string& key,
                                        const RateLimit& rate,
                                        Clock::time_point now = Clock::now());

private:
    struct Bucket {
        double tokens = 0;
        Clock::time_point updated;
        RateLimit rate;  ///< the last one in force, to tell when the bucket is full again
    };
    std::mutex mutex_;
    std::unordered_map<std::string, Bucket> buckets_;
    std::size_t max_keys_;
};

}  // namespace scout::gateway
