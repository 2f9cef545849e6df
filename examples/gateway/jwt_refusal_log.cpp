// jwt_refusal_log.cpp: see jwt_refusal_log.hpp.
#include "jwt_refusal_log.hpp"

#include "log.hpp"
#include "printable.hpp"

namespace scout::gateway {

void JwtRefusalLog::note(const std::string& why) {
    const auto now = std::chrono::steady_clock::now();
    std::uint64_t count = 0;
    {
        std::lock_guard lock(mutex_);
        ++pending_;
        if (now - last_ < std::chrono::seconds(1)) {
            return;
        }
        last_ = now;
        count = pending_;
        pending_ = 0;
    }
    log_line(LogLevel::info,
             "JWT refused: " + detail::printable(why) +
                 (count > 1 ? " (" + std::to_string(count) + " refusals since the last line)"
                            : std::string()));
}

}  // namespace scout::gateway
