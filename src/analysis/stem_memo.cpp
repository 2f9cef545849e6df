// stem_memo.cpp: see stem_memo.hpp.
#include "analysis/stem_memo.hpp"

#include <cstdint>
#include <vector>

#include "analysis/analyzer.hpp"
#include "util/thread_scratch.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {
namespace {

/// Open addressing, at most three quarters full, so probes stay short; a slot is in use when its
/// stamp is the memo's current one, so starting afresh touches no slot.
struct Memo {
    static constexpr std::size_t kSlots = 16384;  // a power of two

    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t stamp = 0;
        std::string word;
        std::string stem;
    };

    std::vector<Slot> slots = std::vector<Slot>(kSlots);
    std::uint32_t stamp = 1;
    std::size_t entries = 0;
    std::string uncached;  // the answer for a word too long to remember

    void start_afresh() {
        entries = 0;
        if (++stamp == 0) {  // wrapped: no slot may look in use
            for (Slot& slot : slots) {
                slot.stamp = 0;
            }
            stamp = 1;
        }
    }
};

static_assert((Memo::kSlots & (Memo::kSlots - 1)) == 0);
static_assert(kStemMemoEntries * 4 <= Memo::kSlots * 3);

}  // namespace

const std::string& memo_porter_stem(std::string_view word) {
    Memo& memo = thread_scratch<Memo>();
    if (word.size() > kStemMemoMaxBytes) {
        memo.uncached = porter_stem(word);
        return memo.uncached;
    }
    const std::uint64_t hash = word_hash(word);
    for (std::size_t pos = hash & (Memo::kSlots - 1);; pos = (pos + 1) & (Memo::kSlots - 1)) {
        Memo::Slot& slot = memo.slots[pos];
        if (slot.stamp != memo.stamp) {
            if (memo.entries >= kStemMemoEntries) {
                // Start afresh: the words in use come back within a few calls.
                memo.start_afresh();
                return memo_porter_stem(word);
            }
            ++memo.entries;
            slot.hash = hash;
            slot.stamp = memo.stamp;
            slot.word.assign(word);
            slot.stem = porter_stem(word);
            return slot.stem;
        }
        if (slot.hash == hash && slot.word == word) {
            return slot.stem;
        }
    }
}

}  // namespace scout::detail
