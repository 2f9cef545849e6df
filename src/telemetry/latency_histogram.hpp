// latency_histogram.hpp: a lock-free log-bucketed latency histogram. Four buckets per power of
// two of microseconds (relative error <= 25% of the lower bound); relaxed atomic counters, so
// recording from many threads costs one fetch_add and percentiles are read without a lock.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>

namespace scout::detail {

class LatencyHistogram {
public:
    static constexpr std::size_t kSubBuckets = 4;
    static constexpr std::size_t kMaxExponent = 40;  // 2^40 us: about 12 days, far past any search
    static constexpr std::size_t kBuckets = 1 + kMaxExponent * kSubBuckets;

    /// Bucket of a latency in microseconds: 0 holds [0, 1); then 4 per octave.
    [[nodiscard]] static std::size_t bucket_of(std::uint64_t micros) noexcept {
        if (micros == 0) {
            return 0;
        }
        const auto e = static_cast<std::size_t>(std::bit_width(micros) - 1);
        if (e >= kMaxExponent) {
            return kBuckets - 1;
        }
        const auto sub = static_cast<std::size_t>(((micros << 2U) >> e) & 3U);
        return 1 + e * kSubBuckets + sub;
    }
    /// Exclusive upper bound of a bucket, in microseconds.
    [[nodiscard]] static double upper_bound_us(std::size_t bucket) noexcept {
        if (bucket == 0) {
            return 1.0;
        }
        const std::size_t e = (bucket - 1) / kSubBuckets;
        const std::size_t sub = (bucket - 1) % kSubBuckets;
        return static_cast<double>(std::uint64_t{1} << e) *
               (1.0 + static_cast<double>(sub + 1) / static_cast<double>(kSubBuckets));
    }

    void record(std::uint64_t micros) noexcept {
        counts_[bucket_of(micros)].fetch_add(1, std::memory_order_relaxed);
    }

    /// Upper bound (us) of the bucket holding the q-quantile (0 < q <= 1); 0 when empty.
    /// Concurrent records may or may not be counted.
    [[nodiscard]] double quantile_us(double q) const noexcept {
        std::array<std::uint64_t, kBuckets> snap{};
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < kBuckets; ++i) {
            snap[i] = counts_[i].load(std::memory_order_relaxed);
            total += snap[i];
        }
        if (total == 0) {
            return 0.0;
        }
        auto target = static_cast<std::uint64_t>(q * static_cast<double>(total) + 0.999999);
        target = target == 0 ? 1 : target;
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < kBuckets; ++i) {
            seen += snap[i];
            if (seen >= target) {
                return upper_bound_us(i);
            }
        }
        return upper_bound_us(kBuckets - 1);
    }

private:
    std::array<std::atomic<std::uint64_t>, kBuckets> counts_{};
};

}  // namespace scout::detail
