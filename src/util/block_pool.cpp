// block_pool.cpp: see block_pool.hpp.
#include "util/block_pool.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace scout::detail::block_pool {

namespace {

struct Block {
    void* data = nullptr;
    std::size_t bytes = 0;  ///< what the block can hold (at least capacity() of its request)
};

struct Pool {
    Pool() { blocks.reserve(kMaxBlocks); }  // so release() never allocates
    std::mutex mu;
    std::vector<Block> blocks;  ///< oldest first
    std::size_t bytes = 0;
    std::size_t outstanding = 0;  ///< capacity() of the blocks handed out and not given back
    std::size_t reused = 0;
    std::size_t fresh = 0;
};

/// Never destroyed: snapshots held by static objects may be retired after the pool's own
/// destructor would have run. Its blocks stay reachable, so leak checkers do not count them.
Pool& pool() {
    static Pool* const instance = new Pool;
    return *instance;
}

constexpr std::size_t kGranule = std::size_t{1} << 20U;

}  // namespace

std::size_t capacity(std::size_t bytes) noexcept {
    return bytes > static_cast<std::size_t>(-1) - kGranule
               ? bytes
               : (bytes + kGranule - 1) / kGranule * kGranule;
}

void* acquire(std::size_t bytes) {
    const std::size_t need = capacity(bytes);
    if (need < bytes) {
        throw std::bad_alloc();
    }
    Pool& p = pool();
    {
        std::lock_guard lock(p.mu);
        // The smallest block that holds `need`, if it wastes at most a quarter more.
        std::size_t best = p.blocks.size();
        for (std::size_t i = 0; i < p.blocks.size(); ++i) {
            const std::size_t size = p.blocks[i].bytes;
            if (size >= need && size - need <= need / 4 &&
                (best == p.blocks.size() || size < p.blocks[best].bytes)) {
                best = i;
            }
        }
        if (best != p.blocks.size()) {
            void* data = p.blocks[best].data;
            p.bytes -= p.blocks[best].bytes;
            p.blocks.erase(p.blocks.begin() + static_cast<std::ptrdiff_t>(best));
            ++p.reused;
            p.outstanding += need;
            return data;
        }
        ++p.fresh;
        p.outstanding += need;
    }
    void* data = std::malloc(need);
    if (data == nullptr) {
        std::lock_guard lock(p.mu);
        p.outstanding -= need;
        throw std::bad_alloc();
    }
    return data;
}

void release(void* block, std::size_t bytes) noexcept {
    if (block == nullptr) {
        return;
    }
    // A reused block may be larger than capacity(bytes); counting it at that size is safe.
    const Block returned{block, capacity(bytes)};
    std::array<void*, kMaxBlocks + 1> evicted{};
    std::size_t count = 0;
    Pool& p = pool();
    {
        std::lock_guard lock(p.mu);
        p.outstanding -= std::min(p.outstanding, returned.bytes);
        if (p.outstanding == 0) {
            // No large array is alive (the last catalog's indexes are gone): nothing will
            // want these blocks soon, so the process gets its memory back.
            for (const Block& b : p.blocks) {
                evicted[count++] = b.data;  // at most kMaxBlocks, and this one
            }
            p.blocks.clear();
            p.bytes = 0;
            evicted[count++] = block;
        } else if (returned.bytes > kMaxBytes) {
            evicted[count++] = block;
        } else {
            while (!p.blocks.empty() &&
                   (p.blocks.size() >= kMaxBlocks || p.bytes + returned.bytes > kMaxBytes)) {
                evicted[count++] = p.blocks.front().data;
                p.bytes -= p.blocks.front().bytes;
                p.blocks.erase(p.blocks.begin());
            }
            p.blocks.push_back(returned);  // within the reserved kMaxBlocks: no allocation
            p.bytes += returned.bytes;
        }
    }
    for (std::size_t i = 0; i < count; ++i) {
        std::free(evicted[i]);
    }
}

void clear() noexcept {
    std::vector<Block> blocks;
    Pool& p = pool();
    {
        std::lock_guard lock(p.mu);
        blocks.swap(p.blocks);
        p.bytes = 0;
    }
    for (const Block& b : blocks) {
        std::free(b.data);
    }
}

Stats stats() noexcept {
    Pool& p = pool();
    std::lock_guard lock(p.mu);
    return {p.blocks.size(), p.bytes, p.outstanding, p.reused, p.fresh};
}

}  // namespace scout::detail::block_pool
