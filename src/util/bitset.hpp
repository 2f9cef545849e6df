// bitset.hpp: a fixed-size set of ToolIds (the scope filter passed into both branches).
#pragma once

#include <cstdint>
#include <vector>

#include "scout/types.hpp"

namespace scout::detail {

class Bitset {
public:
    explicit Bitset(std::size_t n = 0) : words_((n + 63) / 64, 0), size_(n) {}

    void set(ToolId i) noexcept { words_[i >> 6U] |= std::uint64_t{1} << (i & 63U); }
    void set_range(ToolId begin, ToolId end) noexcept {
        for (ToolId i = begin; i < end; ++i) {
            set(i);
        }
    }
    [[nodiscard]] bool test(ToolId i) const noexcept {
        return i < size_ && ((words_[i >> 6U] >> (i & 63U)) & 1U) != 0;
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t count() const noexcept {
        std::size_t n = 0;
        for (std::uint64_t w : words_) {
            n += static_cast<std::size_t>(__builtin_popcountll(w));
        }
        return n;
    }

    /// The ids in the set below `limit`, ascending, in `out` (replacing its contents); one word
    /// at a time, so a sparse scope costs a step per member, not per tool.
    void members(std::size_t limit, std::vector<ToolId>& out) const {
        out.clear();
        const std::size_t end = limit < size_ ? limit : size_;
        for (std::size_t w = 0; w * 64 < end; ++w) {
            std::uint64_t bits = words_[w];
            while (bits != 0) {
                const std::size_t id = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
                if (id >= end) {
                    break;
                }
                out.push_back(static_cast<ToolId>(id));
                bits &= bits - 1;
            }
        }
    }

private:
    std::vector<std::uint64_t> words_;
    std::size_t size_;
};

}  // namespace scout::detail
