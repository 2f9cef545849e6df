// index_table.hpp: an open-addressing hash table of u32 indices into keys the caller keeps (in
// an arena, say), so a table of 100k strings is one array instead of 100k nodes and key copies.
// A slot holds an index and the key's 32-bit hash; the caller says whether the key at an index
// is the one it looks for. In-memory only: the hash need not be stable.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "util/pod_vector.hpp"

namespace scout::detail {

class IndexTable {
public:
    /// find()'s answer when no index holds the key.
    static constexpr std::uint32_t kNone = 0xFFFFFFFFU;

    IndexTable() = default;
    /// A table that holds `expected` indices without growing.
    explicit IndexTable(std::size_t expected) { allocate(std::max<std::size_t>(2 * expected, 8)); }

    /// The index inserted with `hash` for which `is_key(index)` holds, or kNone.
    template <class IsKey>
    [[nodiscard]] std::uint32_t find(std::uint32_t hash, IsKey&& is_key) const {
        if (slots_.empty()) {
            return kNone;
        }
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t pos = hash & mask;; pos = (pos + 1) & mask) {
            const Slot& slot = slots_[pos];
            if (slot.index == kNone) {
                return kNone;
            }
            if (slot.hash == hash && is_key(slot.index)) {
                return slot.index;
            }
        }
    }

    /// Inserts `index` unless an index for which `is_key` holds is there already; returns the
    /// index that holds the key (`index` when it was inserted).
    template <class IsKey>
    std::uint32_t insert(std::uint32_t hash, std::uint32_t index, IsKey&& is_key) {
        if ((size_ + 1) * 2 > slots_.size()) {
            allocate(std::max<std::size_t>(2 * slots_.size(), 8));
        }
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t pos = hash & mask;; pos = (pos + 1) & mask) {
            Slot& slot = slots_[pos];
            if (slot.index == kNone) {
                slot = Slot{index, hash};
                ++size_;
                return index;
            }
            if (slot.hash == hash && is_key(slot.index)) {
                return slot.index;
            }
        }
    }

    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return slots_.capacity() * sizeof(Slot);
    }

private:
    struct Slot {
        std::uint32_t index;
        std::uint32_t hash;
    };

    /// Moves the slots into a table of at least `capacity` slots (a power of two); a slot's
    /// position depends on its hash alone, so no key is read again.
    void allocate(std::size_t capacity) {
        PodVector<Slot> old = std::move(slots_);
        slots_.assign(std::bit_ceil(capacity), Slot{kNone, 0});
        const std::size_t mask = slots_.size() - 1;
        for (const Slot& slot : old) {
            if (slot.index != kNone) {
                std::size_t pos = slot.hash & mask;
                while (slots_[pos].index != kNone) {
                    pos = (pos + 1) & mask;
                }
                slots_[pos] = slot;
            }
        }
    }

    PodVector<Slot> slots_;  // a power of two, at most half full
    std::size_t size_ = 0;
};

}  // namespace scout::detail
