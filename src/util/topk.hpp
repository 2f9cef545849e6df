// topk.hpp: bounded collector of the k best (score, id) pairs. Order is total and deterministic:
// higher score first, then lower id, so equal scores never make rankings flicker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "scout/types.hpp"

namespace scout::detail {

struct ScoredDoc {
    ToolId id = 0;
    float score = 0;
};

[[nodiscard]] inline bool ranks_before(const ScoredDoc& a, const ScoredDoc& b) noexcept {
    return a.score > b.score || (a.score == b.score && a.id < b.id);
}

/// ranks_before as a type: the standard algorithms inline a functor's call, not a pointer's.
struct RankOrder {
    bool operator()(const ScoredDoc& a, const ScoredDoc& b) const noexcept {
        return ranks_before(a, b);
    }
};

class TopK {
public:
    explicit TopK(std::size_t k = 0) : k_(k) { heap_.reserve(k); }

    /// Empties the collector for a new k, keeping its capacity (thread-local scratch reuses one
    /// collector, so steady-state searches do not allocate).
    void reset(std::size_t k) {
        k_ = k;
        heap_.clear();
        heap_.reserve(k);
    }

    /// Lowest score that can still enter; -inf while the heap is not full.
    [[nodiscard]] float threshold() const noexcept {
        return heap_.size() < k_ ? -std::numeric_limits<float>::infinity() : heap_.front().score;
    }

    void push(ToolId id, float score) {
        if (k_ == 0) {
            return;
        }
        const ScoredDoc doc{id, score};
        if (heap_.size() < k_) {
            heap_.push_back(doc);
            std::push_heap(heap_.begin(), heap_.end(), RankOrder{});  // worst on top
        } else if (ranks_before(doc, heap_.front())) {
            replace_worst(doc);
        }
    }

    /// The collected docs, best first. Leaves the collector empty.
    void drain_sorted(std::vector<ScoredDoc>& out) {
        std::sort(heap_.begin(), heap_.end(), RankOrder{});
        out.assign(heap_.begin(), heap_.end());
        heap_.clear();
    }

private:
    /// Puts `doc` in place of the worst and sifts it down: one pass where pop_heap then
    /// push_heap make two (a scan replaces the worst far more often than it fills the heap).
    void replace_worst(const ScoredDoc& doc) noexcept {
        const std::size_t n = heap_.size();
        ScoredDoc* h = heap_.data();
        std::size_t i = 0;
        while (true) {
            std::size_t child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            // The worse child (the one ranked after the other) must rise above `doc`.
            if (child + 1 < n && ranks_before(h[child], h[child + 1])) {
                ++child;
            }
            if (!ranks_before(doc, h[child])) {
                break;
            }
            h[i] = h[child];
            i = child;
        }
        h[i] = doc;
    }

    std::size_t k_;
    std::vector<ScoredDoc> heap_;
};

/// Top-k for long scans where many candidates beat an early threshold: candidates at or above a
/// running threshold are appended to a buffer of 4k, which is cut back to its k best
/// (nth_element) when full. O(1) amortized per candidate instead of a heap's O(log k); the
/// result is the same exact top-k under the same total order (score desc, id asc).
class TopKBuffer {
public:
    /// Empties the buffer for a new k, keeping its capacity.
    void reset(std::size_t k) {
        k_ = k;
        threshold_ = -std::numeric_limits<float>::infinity();
        buf_.clear();
        buf_.reserve(4 * k + 1);
    }

    /// Lowest score that can still enter (equal scores may, by id).
    [[nodiscard]] float threshold() const noexcept { return threshold_; }

    void push(ToolId id, float score) {
        if (k_ == 0 || score < threshold_) {
            return;
        }
        buf_.push_back({id, score});
        if (buf_.size() >= 4 * k_) {
            compact();
        }
    }

    /// The k best, best first. Leaves the buffer empty.
    void drain_sorted(std::vector<ScoredDoc>& out) {
        if (buf_.size() > k_) {
            compact();
        }
        std::sort(buf_.begin(), buf_.end(), RankOrder{});
        out.assign(buf_.begin(), buf_.end());
        buf_.clear();
    }

    /// The k best in no particular order. Leaves the buffer empty.
    void drain_unordered(std::vector<ScoredDoc>& out) {
        if (buf_.size() > k_) {
            compact();
        }
        out.assign(buf_.begin(), buf_.end());
        buf_.clear();
    }

private:
    void compact() {
        const auto kth = buf_.begin() + static_cast<std::ptrdiff_t>(k_ - 1);
        std::nth_element(buf_.begin(), kth, buf_.end(), RankOrder{});
        buf_.resize(k_);
        threshold_ = kth->score;
    }

    std::size_t k_ = 0;
    float threshold_ = -std::numeric_limits<float>::infinity();
    std::vector<ScoredDoc> buf_;
};

}  // namespace scout::detail
