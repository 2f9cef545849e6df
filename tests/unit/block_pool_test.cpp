// block_pool_test.cpp: retired large blocks are handed to the next request of about their size,
// never to one they cannot hold, the pool stays within its bounds, PodVector's large arrays go
// through it, and threads acquiring and releasing at once never share a block.
#include "util/block_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "util/pod_vector.hpp"

namespace block_pool = scout::detail::block_pool;
using scout::detail::PodVector;

namespace {
constexpr std::size_t kMiB = std::size_t{1} << 20U;

/// A block held for the life of a test: with nothing handed out, the pool keeps nothing (as when
/// the last catalog is gone), so the tests of reuse hold one, as a live index would.
struct Keeper {
    Keeper() : block(block_pool::acquire(kMiB)) {}
    ~Keeper() { block_pool::release(block, kMiB); }
    Keeper(const Keeper&) = delete;
    Keeper& operator=(const Keeper&) = delete;
    void* block;
};
}  // namespace

TEST_CASE("a released block serves the next request of about its size", "[concurrency][pool]") {
    block_pool::clear();
    const Keeper keeper;
    CHECK(block_pool::capacity(kMiB) == kMiB);
    CHECK(block_pool::capacity(kMiB + 1) == 2 * kMiB);
    CHECK(block_pool::capacity(3 * kMiB - 5) == 3 * kMiB);

    const std::size_t bytes = 8 * kMiB + 123;
    void* block = block_pool::acquire(bytes);
    REQUIRE(block != nullptr);
    std::memset(block, 0x5a, block_pool::capacity(bytes));  // the whole capacity is usable
    const block_pool::Stats before = block_pool::stats();
    block_pool::release(block, bytes);
    CHECK(block_pool::stats().blocks == before.blocks + 1);

    // Too large for it, and so much smaller that it would waste most of it: fresh blocks.
    void* larger = block_pool::acquire(bytes + kMiB);
    void* smaller = block_pool::acquire(2 * kMiB);
    CHECK(larger != block);
    CHECK(smaller != block);
    // A few bytes more still fits its capacity: the same block.
    void* again = block_pool::acquire(bytes + 100);
    CHECK(again == block);
    CHECK(block_pool::stats().reused == before.reused + 1);
    block_pool::release(larger, bytes + kMiB);
    block_pool::release(smaller, 2 * kMiB);
    block_pool::release(again, bytes + 100);
    block_pool::clear();
    CHECK(block_pool::stats().blocks == 0);
    CHECK(block_pool::stats().bytes == 0);
}

TEST_CASE("the pool keeps at most its bounds", "[concurrency][pool]") {
    block_pool::clear();
    const Keeper keeper;
    std::vector<void*> blocks;
    for (std::size_t i = 0; i < block_pool::kMaxBlocks + 5; ++i) {
        blocks.push_back(block_pool::acquire((i + 1) * kMiB));
    }
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        block_pool::release(blocks[i], (i + 1) * kMiB);
        const block_pool::Stats s = block_pool::stats();
        CHECK(s.blocks <= block_pool::kMaxBlocks);
        CHECK(s.bytes <= block_pool::kMaxBytes);
    }
    CHECK(block_pool::stats().blocks == block_pool::kMaxBlocks);
    // A block larger than the whole pool is freed at once.
    const std::size_t huge = block_pool::kMaxBytes + kMiB;
    void* big = block_pool::acquire(huge);
    block_pool::release(big, huge);
    CHECK(block_pool::stats().bytes <= block_pool::kMaxBytes);
    block_pool::clear();
}

TEST_CASE("PodVector's large arrays reuse retired blocks, small ones bypass the pool",
          "[concurrency][pool]") {
    block_pool::clear();
    const Keeper keeper;
    const std::size_t n = (3 * kMiB - 4096) / sizeof(float);  // room for a few more
    const float* first = nullptr;
    {
        PodVector<float> v(n);
        std::fill(v.begin(), v.end(), 1.5f);
        first = v.data();
    }
    PodVector<float> w;
    w.resize(n + 7);
    CHECK(w.data() == first);
    const block_pool::Stats before = block_pool::stats();
    { PodVector<std::uint32_t> small(1000, 7U); }
    CHECK(block_pool::stats().blocks == before.blocks);
    CHECK(block_pool::stats().fresh == before.fresh);
    w.clear();
    w.shrink_to_fit();
    block_pool::clear();
}

TEST_CASE("threads acquiring and releasing at once never share a block", "[concurrency][pool]") {
    block_pool::clear();
    constexpr int kThreads = 4;
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    std::vector<int> corrupted(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([t, &corrupted] {
            std::mt19937 rng(static_cast<unsigned>(t) + 1U);
            // Compared with memcmp against a filled copy rather than byte by byte: the same check,
            // without an instrumented loop over 840 MB under a sanitizer.
            std::vector<unsigned char> expected(6 * kMiB + 4096);
            for (int round = 0; round < 60; ++round) {
                const std::size_t bytes = (1 + rng() % 6) * kMiB + rng() % 4096;
                auto* block = static_cast<unsigned char*>(block_pool::acquire(bytes));
                const auto mark = static_cast<unsigned char>(t * 61 + round);
                std::memset(block, mark, bytes);
                std::memset(expected.data(), mark, bytes);
                std::this_thread::yield();
                if (std::memcmp(block, expected.data(), bytes) != 0) {
                    ++corrupted[static_cast<std::size_t>(t)];
                }
                block_pool::release(block, bytes);
            }
        });
    }
    for (std::thread& th : threads) {
        th.join();
    }
    for (int t = 0; t < kThreads; ++t) {
        CHECK(corrupted[static_cast<std::size_t>(t)] == 0);
    }
    CHECK(block_pool::stats().blocks <= block_pool::kMaxBlocks);
    block_pool::clear();
}

TEST_CASE("the pool frees what it holds once no block is handed out", "[concurrency][pool]") {
    block_pool::clear();
    const std::size_t outstanding = block_pool::stats().outstanding;
    void* a = block_pool::acquire(2 * kMiB);
    void* b = block_pool::acquire(3 * kMiB);
    CHECK(block_pool::stats().outstanding == outstanding + 5 * kMiB);
    block_pool::release(a, 2 * kMiB);
    CHECK(block_pool::stats().blocks == 1);  // b is still out: a waits for the next request
    block_pool::release(b, 3 * kMiB);
    CHECK(block_pool::stats().outstanding == outstanding);
    if (outstanding == 0) {
        CHECK(block_pool::stats().blocks == 0);
        CHECK(block_pool::stats().bytes == 0);
    }
    {
        // The same through arrays: the last large one gone, nothing stays pooled.
        PodVector<float> first(kMiB);
        { PodVector<float> second(kMiB); }
        CHECK(block_pool::stats().blocks == 1);
    }
    if (outstanding == 0) {
        CHECK(block_pool::stats().blocks == 0);
    }
}
