// thread_pool.cpp: see thread_pool.hpp.
#include "util/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <system_error>

namespace scout::detail {
namespace {

/// Set while a thread runs a loop's chunks, so a loop started inside one runs inline instead of
/// waiting for the turn its own caller holds.
thread_local bool inside_loop = false;

struct InsideLoop {
    InsideLoop() { inside_loop = true; }
    ~InsideLoop() { inside_loop = false; }
    InsideLoop(const InsideLoop&) = delete;
    InsideLoop& operator=(const InsideLoop&) = delete;
};

}  // namespace

struct ThreadPool::Loop {
    std::size_t n = 0;
    std::size_t chunk = 1;
    const Body* body = nullptr;
    std::atomic<std::size_t> next{0};  // first index not yet claimed
    std::atomic<std::size_t> done{0};
    std::atomic<bool> failed{false};
    std::mutex error_mu;
    std::size_t error_at = std::numeric_limits<std::size_t>::max();
    std::exception_ptr error;

    void fail(std::size_t at, std::exception_ptr e) {
        std::lock_guard lock(error_mu);
        if (at < error_at) {
            error_at = at;
            error = std::move(e);
        }
        failed.store(true, std::memory_order_relaxed);
    }
};

std::size_t ThreadPool::resolve(std::size_t threads) noexcept {
    if (threads != 0) {
        return threads;
    }
    return std::max<std::size_t>(std::thread::hardware_concurrency(), 1);
}

ThreadPool::ThreadPool(std::size_t threads) : threads_(resolve(threads)) {}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) {
        t.join();
    }
}

void ThreadPool::start_workers() {
    workers_.reserve(threads_ - 1);
    try {
        while (workers_.size() + 1 < threads_) {
            workers_.emplace_back([this] { work(); });
        }
    } catch (const std::system_error&) {
        // Fewer threads than asked for: the loops still run, on those that started.
    }
}

void ThreadPool::work() {
    std::size_t seen = 0;
    std::unique_lock lock(mu_);
    for (;;) {
        wake_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) {
            return;
        }
        seen = round_;
        Loop* loop = loop_;
        if (loop == nullptr) {
            continue;  // woke after that loop had finished
        }
        ++busy_;
        lock.unlock();
        {
            InsideLoop inside;
            run_chunks(*loop, nullptr);
        }
        lock.lock();
        if (--busy_ == 0) {
            idle_.notify_all();
        }
    }
}

void ThreadPool::run_chunks(Loop& loop, const Progress* progress) {
    std::size_t reported = 0;
    for (;;) {
        if (loop.failed.load(std::memory_order_relaxed)) {
            return;
        }
        const std::size_t begin = loop.next.fetch_add(loop.chunk, std::memory_order_relaxed);
        if (begin >= loop.n) {
            return;
        }
        const std::size_t end = std::min(begin + loop.chunk, loop.n);
        try {
            (*loop.body)(begin, end);
            const std::size_t done =
                loop.done.fetch_add(end - begin, std::memory_order_acq_rel) + (end - begin);
            if (progress != nullptr && *progress && done > reported && done < loop.n) {
                reported = done;
                (*progress)(done);
            }
        } catch (...) {
            loop.fail(begin, std::current_exception());
        }
    }
}

void ThreadPool::parallel_for(std::size_t n,
                              std::size_t chunk,
                              const Body& body,
                              const Progress& progress) {
    chunk = std::max<std::size_t>(chunk, 1);
    Loop loop;
    loop.n = n;
    loop.chunk = chunk;
    loop.body = &body;
    if (threads_ <= 1 || n <= chunk || inside_loop) {
        run_chunks(loop, &progress);
    } else {
        std::lock_guard turn(turn_);
        if (workers_.empty()) {
            start_workers();
        }
        {
            std::lock_guard lock(mu_);
            loop_ = &loop;
            ++round_;
        }
        wake_.notify_all();
        {
            InsideLoop inside;
            run_chunks(loop, &progress);
        }
        // Every chunk is claimed; wait for the workers still running theirs.
        std::unique_lock lock(mu_);
        idle_.wait(lock, [&] { return busy_ == 0; });
        loop_ = nullptr;
    }
    if (loop.error) {
        std::rethrow_exception(loop.error);
    }
    if (progress && n > 0) {
        progress(n);
    }
}

}  // namespace scout::detail
