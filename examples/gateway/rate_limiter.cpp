// rate_limiter.cpp: see rate_limiter.hpp.
#include "rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace scout::gateway {

std::uint64_t RateLimiter::acquire(const std::string& key,
                                   const RateLimit& rate,
                                   Clock::time_point now) {
    std::lock_guard lock(mutex_);
    auto it = buckets_.find(key);
    if (it == buckets_.end()) {
        if (buckets_.size() >= max_keys_) {  // drop the buckets that have refilled
            for (auto b = buckets_.begin(); b != buckets_.end();) {
                const Bucket& old = b->second;
                const double elapsed = std::chrono::duration<double>(now - old.updated).count();
                if (old.tokens + elapsed * old.rate.requests_per_second >= old.rate.burst) {
                    b = buckets_.erase(b);
                } else {
                    ++b;
                }
            }
        }
        it = buckets_.emplace(key, Bucket{rate.burst, now, rate}).first;
    }
    Bucket& b = it->second;
    b.rate = rate;
    const double elapsed = std::max(0.0, std::chrono::duration<double>(now - b.updated).count());
    b.tokens = std::min(rate.burst, b.tokens + elapsed * rate.requests_per_second);
    b.updated = now;
    if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
    }
    const double wait = std::ceil((1 - b.tokens) / rate.requests_per_second);
    return wait < 1 ? 1 : wait > 1e9 ? 1000000000U : static_cast<std::uint64_t>(wait);
}

}  // namespace scout::gateway
