// cancel_token.hpp: the link between a client's notifications/cancelled and the backend request
// it is about. The gateway cancels the token; the session waiting for the backend's answer has
// registered a hook that wakes it, and it then tells the backend.
#pragma once

#include <functional>
#include <mutex>
#include <string>

namespace scout::gateway {

/// Thread-safe. Hooks run under the token's lock: they must be short and must not touch the
/// token. Lock order: the token's lock before any lock a hook takes.
class CancelToken {
public:
    /// Cancels and runs the hook. Only the first call counts.
    void cancel(std::string reason) {
        std::lock_guard lock(mutex_);
        if (cancelled_) {
            return;
        }
        cancelled_ = true;
        reason_ = std::move(reason);
        if (hook_) {
            hook_();
        }
    }

    [[nodiscard]] bool cancelled() const {
        std::lock_guard lock(mutex_);
        return cancelled_;
    }

    [[nodiscard]] std::string reason() const {
        std::lock_guard lock(mutex_);
        return reason_;
    }

    /// Sets the hook cancel() runs (runs it now when already cancelled); an empty function
    /// removes it. Once this returns, an earlier hook is neither running nor going to run.
    void on_cancel(std::function<void()> hook) {
        std::lock_guard lock(mutex_);
        hook_ = std::move(hook);
        if (cancelled_ && hook_) {
            hook_();
        }
    }

private:
    mutable std::mutex mutex_;
    bool cancelled_ = false;
    std::string reason_;
    std::function<void()> hook_;
};

}  // namespace scout::gateway
