// call_pool.hpp: the threads tools/call and tools/list run on, so the thread reading the
// client never waits for a backend. Threads are started as calls need them, up to a cap, by a
// spawner thread of the pool's own (the submitter never pays for creating one); beyond the cap
// calls wait in a bounded queue, and beyond that they are refused at once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scout::gateway {

/// Thread-safe.
class CallPool {
public:
    /// `max_threads` calls run at once (each may wait on a backend up to its timeout);
    /// `max_queued` more wait for a thread.
    CallPool(std::size_t max_threads, std::size_t max_queued);
    ~CallPool();
    CallPool(const CallPool&) = delete;
    CallPool& operator=(const CallPool&) = delete;

    /// Queues `job` for a pool thread; never blocks. False (the job is dropped) when the queue
    /// is full or the pool is shutting down.
    [[nodiscard]] bool submit(std::function<void()> job);
    /// Refuses new jobs, lets the queued ones run, joins every thread. Idempotent.
    void shutdown();

private:
    void work();
    void spawn();
    [[nodiscard]] bool short_of_threads() const {
        return queue_.size() > idle_ && started_ < max_threads_;
    }

    std::size_t max_threads_;
    std::size_t max_queued_;
    std::mutex mutex_;
    std::condition_variable jobs_cv_;
    std::condition_variable spawn_cv_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> threads_;
    std::size_t started_ = 0;  ///< workers started or being started
    std::size_t idle_ = 0;
    bool stopping_ = false;
    std::thread spawner_;
};

}  // namespace scout::gateway
