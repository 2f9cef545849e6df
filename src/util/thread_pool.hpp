// thread_pool.hpp: a bounded pool for a commit's parallel parts: a fixed set of workers that
// share one parallel loop at a time (no task queue), the calling thread working alongside.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scout::detail {

/// `threads` counting the calling thread: 0 means std::thread::hardware_concurrency() (1 when
/// it is unknown), 1 runs every loop inline and never creates a thread. Workers start on the
/// first loop that has more than one chunk and stop with the pool.
class ThreadPool {
public:
    /// Runs indices [begin, end).
    using Body = std::function<void(std::size_t begin, std::size_t end)>;
    /// Hears how many indices are done; called on the thread that called parallel_for.
    using Progress = std::function<void(std::size_t done)>;

    explicit ThreadPool(std::size_t threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// The thread count a CatalogOptions::threads value stands for.
    [[nodiscard]] static std::size_t resolve(std::size_t threads) noexcept;
    [[nodiscard]] std::size_t threads() const noexcept { return threads_; }

    /// Runs body over [0, n) in chunks of at most `chunk` indices (claimed in increasing order)
    /// and returns when every chunk ran. When chunks throw, chunks not yet started are skipped
    /// and the exception of the lowest failing chunk is rethrown here. `progress` (may be
    /// empty) hears the done count between the calling thread's own chunks, never decreasing,
    /// and n at the end. Loops from several threads take turns; a loop started inside a body
    /// runs inline.
    void parallel_for(std::size_t n,
                      std::size_t chunk,
                      const Body& body,
                      const Progress& progress = {});

private:
    struct Loop;
    void start_workers();
    void work();
    /// Claims and runs chunks of `loop` until none is left.
    static void run_chunks(Loop& loop, const Progress* progress);

    std::size_t threads_;
    std::mutex turn_;  // one loop at a time
    std::vector<std::thread> workers_;
    std::mutex mu_;  // guards what follows
    std::condition_variable wake_;
    std::condition_variable idle_;
    Loop* loop_ = nullptr;
    std::size_t round_ = 0;  // counts loops, so a worker joins each at most once
    std::size_t busy_ = 0;   // workers inside loop_
    bool stop_ = false;
};

}  // namespace scout::detail
