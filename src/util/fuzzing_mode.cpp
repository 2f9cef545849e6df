#include "util/fuzzing_mode.hpp"

#include <atomic>

namespace scout::detail {
namespace {
std::atomic<bool> g_skip_checksums{false};
}  // namespace

void skip_checksums_for_fuzzing() noexcept {
    g_skip_checksums.store(true, std::memory_order_relaxed);
}

bool checksums_skipped_for_fuzzing() noexcept {
    return g_skip_checksums.load(std::memory_order_relaxed);
}

}  // namespace scout::detail
