// call_pool.cpp: see call_pool.hpp.
#include "call_pool.hpp"

#include <string>
#include <system_error>

#include "log.hpp"

namespace scout::gateway {

CallPool::CallPool(std::size_t max_threads, std::size_t max_queued)
    : max_threads_(max_threads), max_queued_(max_queued) {
    spawner_ = std::thread([this] { spawn(); });
}

CallPool::~CallPool() {
    shutdown();
}

bool CallPool::submit(std::function<void()> job) {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= max_queued_) {
        return false;
    }
    queue_.push_back(std::move(job));
    jobs_cv_.notify_one();
    if (short_of_threads()) {
        spawn_cv_.notify_one();
    }
    return true;
}

void CallPool::spawn() {
    std::unique_lock lock(mutex_);
    for (;;) {
        spawn_cv_.wait(lock, [this] { return stopping_ || short_of_threads(); });
        if (stopping_ && !short_of_threads()) {
            return;  // the workers there are drain the queue
        }
        ++started_;
        lock.unlock();
        std::thread worker;
        try {
            worker = std::thread([this] { work(); });
        } catch (const std::system_error& e) {
            log_line(std::string("cannot start a call thread: ") + e.what());
        }
        lock.lock();
        if (worker.joinable()) {
            threads_.push_back(std::move(worker));
            continue;
        }
        --started_;
        if (started_ == 0 && !queue_.empty()) {
            // Not one worker exists: run a job here rather than leave it unanswered.
            auto job = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            job();
            lock.lock();
        } else {
            spawn_cv_.wait_for(lock, std::chrono::milliseconds(100));  // retry later, not in a spin
        }
    }
}

void CallPool::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_;
        jobs_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        --idle_;
        if (queue_.empty()) {
            return;  // stopping, nothing left
        }
        auto job = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        job();
        lock.lock();
    }
}

void CallPool::shutdown() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && !spawner_.joinable()) {
            return;
        }
        stopping_ = true;
    }
    jobs_cv_.notify_all();
    spawn_cv_.notify_all();
    if (spawner_.joinable()) {
        spawner_.join();
    }
    std::vector<std::thread> threads;
    {
        std::lock_guard lock(mutex_);
        threads.swap(threads_);
    }
    for (auto& t : threads) {
        t.join();
    }
}

}  // namespace scout::gateway
