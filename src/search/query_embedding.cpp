// query_embedding.cpp: see query_embedding.hpp. Timed embeddings run on a small shared pool of
// helper threads: a hung embedder can hold at most kMaxHelpers threads and kMaxWaiting queued
// requests, never one new thread per search.
#include "search/query_embedding.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "dense/dense_index.hpp"

namespace scout::detail {
namespace {

Result<std::vector<float>> embed_now(Embedder& embedder, const std::string& text) {
    try {
        const std::size_t dim = embedder.dim();
        std::string one[1] = {text};
        auto out = embedder.embed(one);
        if (!out) {
            return out.status();
        }
        if (out->size() != dim) {
            return Status{Errc::dimension_mismatch,
                          "embedder returned " + std::to_string(out->size()) +
                              " floats, expected " + std::to_string(dim)};
        }
        if (!normalize(out->data(), dim)) {
            const bool finite =
                std::all_of(out->begin(), out->end(), [](float x) { return std::isfinite(x); });
            // A zero vector is no failure: the model knows none of the query's words.
            return finite ? Status{Errc::not_found, kNoKnownWords}
                          : Status{Errc::unavailable, "query embedding is not finite"};
        }
        return out;
    } catch (const std::exception& e) {
        return Status{Errc::unavailable, std::string("embedder threw: ") + e.what()};
    } catch (...) {
        return Status{Errc::unavailable, "embedder threw a non-standard exception"};
    }
}

/// One timed embedding. The job owns what it uses, so a caller that stops waiting leaves
/// nothing dangling; `abandoned` lets a helper skip a job nobody waits for any more.
struct Job {
    std::shared_ptr<Embedder> embedder;
    std::string text;
    std::promise<Result<std::vector<float>>> promise;
    std::atomic<bool> abandoned{false};
};

class HelperPool {
public:
    /// Helper threads at most: a hung embedder holds them all, and then searches degrade at
    /// once instead of piling up threads.
    static constexpr std::size_t kMaxHelpers = 4;
    /// Jobs waiting for a helper at most.
    static constexpr std::size_t kMaxWaiting = 64;

    /// Never destroyed: helpers may be stuck in an embedder when the process exits.
    static HelperPool& instance() {
        static auto* pool = new HelperPool();
        return *pool;
    }

    /// Queues `job`; false when the queue is full (every helper is busy, or hung).
    bool submit(const std::shared_ptr<Job>& job) {
        std::lock_guard lock(mu_);
        if (waiting_.size() >= kMaxWaiting) {  // drop the jobs whose callers stopped waiting
            std::erase_if(waiting_, [](const auto& j) { return j->abandoned.load(); });
        }
        if (waiting_.size() >= kMaxWaiting) {
            return false;
        }
        waiting_.push_back(job);
        if (idle_ == 0 && helpers_ < kMaxHelpers) {
            try {
                std::thread([this] { run(); }).detach();
                ++helpers_;
            } catch (const std::system_error&) {
                if (helpers_ == 0) {  // nobody would ever take the job
                    waiting_.pop_back();
                    return false;
                }
            }
        }
        ready_.notify_one();
        return true;
    }

private:
    HelperPool() = default;

    void run() {
        std::unique_lock lock(mu_);
        for (;;) {
            ++idle_;
            ready_.wait(lock, [this] { return !waiting_.empty(); });
            --idle_;
            std::shared_ptr<Job> job = std::move(waiting_.front());
            waiting_.pop_front();
            if (job->abandoned.load()) {
                continue;
            }
            lock.unlock();
            job->promise.set_value(embed_now(*job->embedder, job->text));
            job.reset();
            lock.lock();
        }
    }

    std::mutex mu_;
    std::condition_variable ready_;
    std::deque<std::shared_ptr<Job>> waiting_;
    std::size_t helpers_ = 0;
    std::size_t idle_ = 0;
};

}  // namespace

Result<std::vector<float>> embed_query(const std::shared_ptr<Embedder>& embedder,
                                       const std::string& text,
                                       std::chrono::milliseconds timeout) {
    if (!embedder) {
        return Status{Errc::unavailable, "no embedder configured"};
    }
    if (timeout.count() <= 0) {
        return embed_now(*embedder, text);
    }
    auto job = std::make_shared<Job>();
    job->embedder = embedder;
    job->text = text;
    auto future = job->promise.get_future();
    if (!HelperPool::instance().submit(job)) {
        return Status{Errc::unavailable,
                      "embedder busy: " + std::to_string(HelperPool::kMaxWaiting) +
                          " query embeddings are already waiting for it"};
    }
    if (future.wait_for(timeout) != std::future_status::ready) {
        job->abandoned.store(true);
        return Status{Errc::unavailable,
                      "embedder timed out after " + std::to_string(timeout.count()) + " ms"};
    }
    return future.get();
}

}  // namespace scout::detail
