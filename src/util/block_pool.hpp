// block_pool.hpp: large memory blocks that arrays free, kept for the next array of about the same
// size. Each commit lays out a BM25 index about as large as the one it retires; handing it the
// retired index's blocks skips the kernel faulting in (and zeroing) tens of megabytes of fresh
// pages per commit. Process-wide and thread-safe: a snapshot is retired on whichever thread
// drops it last.
#pragma once

#include <cstddef>

namespace scout::detail::block_pool {

/// Requests of fewer bytes go to the ordinary allocator.
constexpr std::size_t kPooledFrom = std::size_t{1} << 20U;
/// At most this many blocks and bytes wait in the pool; past them the oldest are freed. Once no
/// block is handed out (every large array is gone), the pool frees all it holds.
constexpr std::size_t kMaxBlocks = 8;
constexpr std::size_t kMaxBytes = std::size_t{1} << 30U;

/// The size of the block acquire(bytes) returns: `bytes` rounded up to whole MiB, so an array
/// that grows by a few elements still fits the block of its predecessor.
[[nodiscard]] std::size_t capacity(std::size_t bytes) noexcept;
/// A block of capacity(bytes) or a little more (bytes >= kPooledFrom): a pooled one when one
/// fits, a fresh one otherwise. Throws std::bad_alloc.
[[nodiscard]] void* acquire(std::size_t bytes);
/// Gives back a block acquire(bytes) returned, with the same `bytes`.
void release(void* block, std::size_t bytes) noexcept;
/// Frees every pooled block.
void clear() noexcept;

struct Stats {
    std::size_t blocks = 0;
    std::size_t bytes = 0;
    std::size_t outstanding = 0;  ///< capacity() of the blocks handed out and not given back
    std::size_t reused = 0;       ///< acquires served from the pool, since the start
    std::size_t fresh = 0;        ///< acquires served by a new allocation
};
[[nodiscard]] Stats stats() noexcept;

}  // namespace scout::detail::block_pool
