// pod_vector.hpp: a std::vector whose resize leaves new elements uninitialized, for large arrays
// of plain numbers that are written in full right after they are sized (zeroing them first
// would be a pass over memory that is then overwritten), and whose large arrays reuse the
// blocks of retired ones (block_pool.hpp).
#pragma once

#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/block_pool.hpp"

namespace scout::detail {

/// std::allocator, except that value-initialization (what resize does) default-initializes.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    static_assert(std::is_trivially_default_constructible_v<T>);
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() noexcept = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>& /*other*/) noexcept {}

    /// Large arrays come from the block pool, which keeps the blocks retired arrays free.
    [[nodiscard]] T* allocate(std::size_t n) {
        if (n >= block_pool::kPooledFrom / sizeof(T)) {
            if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
                throw std::bad_array_new_length();
            }
            return static_cast<T*>(block_pool::acquire(n * sizeof(T)));
        }
        return std::allocator<T>::allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n >= block_pool::kPooledFrom / sizeof(T)) {
            block_pool::release(p, n * sizeof(T));
        } else {
            std::allocator<T>::deallocate(p, n);
        }
    }

    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

template <class T>
using PodVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace scout::detail
