// thread_pool_test.cpp: the bounded pool runs every index exactly once, within its bounds,
// reports the lowest failing chunk, counts progress upwards on the calling thread, and with one
// thread runs everything inline.
#include "util/thread_pool.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

using scout::detail::ThreadPool;

TEST_CASE("the pool runs every index once, in chunks within bounds", "[concurrency][pool]") {
    const std::size_t threads = GENERATE(1U, 2U, 4U);
    const std::size_t n = GENERATE(0U, 1U, 7U, 64U, 1000U);
    const std::size_t chunk = GENERATE(1U, 3U, 64U);
    INFO("threads " << threads << ", n " << n << ", chunk " << chunk);
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> runs(n);
    std::atomic<bool> bad_chunk{false};
    pool.parallel_for(n, chunk, [&](std::size_t begin, std::size_t end) {
        if (begin >= end || end > n || end - begin > chunk || begin % chunk != 0) {
            bad_chunk = true;
        }
        for (std::size_t i = begin; i < end; ++i) {
            runs[i].fetch_add(1);
        }
    });
    CHECK_FALSE(bad_chunk);
    for (std::size_t i = 0; i < n; ++i) {
        INFO("index " << i);
        CHECK(runs[i].load() == 1);
    }
    // The pool is reusable: a second loop runs everything again.
    pool.parallel_for(n, chunk, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            runs[i].fetch_add(1);
        }
    });
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(runs[i].load() == 2);
    }
}

TEST_CASE("a pool of one thread runs inline", "[concurrency][pool]") {
    ThreadPool pool(1);
    std::set<std::thread::id> seen;
    std::vector<std::size_t> order;
    pool.parallel_for(100, 7, [&](std::size_t begin, std::size_t end) {
        seen.insert(std::this_thread::get_id());
        order.push_back(begin);
        (void)end;
    });
    REQUIRE(seen == std::set<std::thread::id>{std::this_thread::get_id()});
    for (std::size_t i = 0; i < order.size(); ++i) {
        CHECK(order[i] == i * 7);  // in order, one chunk after the other
    }
    CHECK(ThreadPool(0).threads() >= 1);
    CHECK(ThreadPool::resolve(0) == std::max(1U, std::thread::hardware_concurrency()));
}

TEST_CASE("the pool uses its threads and no more", "[concurrency][pool]") {
    ThreadPool pool(3);
    std::mutex mu;
    std::set<std::thread::id> seen;
    std::atomic<int> inside{0};
    std::atomic<int> most{0};
    pool.parallel_for(2000, 1, [&](std::size_t, std::size_t) {
        const int now = inside.fetch_add(1) + 1;
        int prev = most.load();
        while (now > prev && !most.compare_exchange_weak(prev, now)) {
        }
        {
            std::lock_guard lock(mu);
            seen.insert(std::this_thread::get_id());
        }
        inside.fetch_sub(1);
    });
    CHECK(seen.size() <= 3);
    CHECK(most.load() <= 3);
}

TEST_CASE("a failing chunk reports to the caller", "[concurrency][pool]") {
    const std::size_t threads = GENERATE(1U, 2U, 4U);
    ThreadPool pool(threads);
    std::atomic<std::size_t> ran{0};
    const auto body = [&](std::size_t begin, std::size_t end) {
        ran.fetch_add(end - begin);
        if (begin >= 500 && begin % 100 == 0) {
            throw std::runtime_error("chunk " + std::to_string(begin));
        }
    };
    try {
        pool.parallel_for(1000, 10, body);
        FAIL("no exception");
    } catch (const std::runtime_error& e) {
        // The lowest failing chunk, whatever the scheduling.
        CHECK(std::string(e.what()) == "chunk 500");
    }
    CHECK(ran.load() >= 510);
    // The pool still works after a failure.
    std::atomic<std::size_t> sum{0};
    pool.parallel_for(
        100, 10, [&](std::size_t begin, std::size_t end) { sum.fetch_add(end - begin); });
    CHECK(sum.load() == 100);
}

TEST_CASE("progress counts upwards on the calling thread", "[concurrency][pool]") {
    const std::size_t threads = GENERATE(1U, 2U, 4U);
    ThreadPool pool(threads);
    const auto caller = std::this_thread::get_id();
    std::vector<std::size_t> reports;
    bool other_thread = false;
    pool.parallel_for(
        1000,
        16,
        [&](std::size_t, std::size_t) { std::this_thread::yield(); },
        [&](std::size_t done) {
            other_thread = other_thread || std::this_thread::get_id() != caller;
            reports.push_back(done);
        });
    CHECK_FALSE(other_thread);
    REQUIRE_FALSE(reports.empty());
    CHECK(reports.back() == 1000);
    for (std::size_t i = 1; i < reports.size(); ++i) {
        CHECK(reports[i] > reports[i - 1]);
    }
}

TEST_CASE("a loop inside a loop runs inline", "[concurrency][pool]") {
    ThreadPool pool(2);
    std::atomic<std::size_t> total{0};
    pool.parallel_for(8, 1, [&](std::size_t, std::size_t) {
        pool.parallel_for(
            10, 2, [&](std::size_t begin, std::size_t end) { total.fetch_add(end - begin); });
    });
    CHECK(total.load() == 80);
}

TEST_CASE("loops from several threads take turns", "[concurrency][pool]") {
    ThreadPool pool(2);
    std::atomic<std::size_t> total{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 3; ++t) {
        callers.emplace_back([&] {
            for (int round = 0; round < 20; ++round) {
                pool.parallel_for(100, 5, [&](std::size_t begin, std::size_t end) {
                    total.fetch_add(end - begin);
                });
            }
        });
    }
    for (std::thread& t : callers) {
        t.join();
    }
    CHECK(total.load() == 3U * 20U * 100U);
}
