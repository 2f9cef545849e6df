// stem_memo.cpp: see stem_memo.hpp.
#include "analysis/stem_memo.hpp"

#include <cstdint>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/term.hpp"
#include "util/thread_scratch.hpp"
#include "util/word_hash.hpp"

namespace scout::detail {
namespace {

/// One remembered word: its stem, its stem term and their hashes.
struct Entry {
    std::uint64_t hash = 0;
    std::string word;
    std::string stem;
    std::string stem_term;
    std::uint64_t stem_hash = 0;
    std::uint64_t stem_term_hash = 0;

    void fill(std::string_view w, std::uint64_t h) {
        hash = h;
        word.assign(w);
        stem = porter_stem(w);
        stem_term = make_term(TermKind::stem, stem);
        stem_hash = word_hash(stem);
        stem_term_hash = word_hash(stem_term);
    }

    [[nodiscard]] MemoStem view() const {
        return {hash, stem, stem_hash, stem_term, stem_term_hash};
    }
};

/// Open addressing, at most three quarters full, so probes stay short; a slot is in use when its
/// stamp is the memo's current one, so starting afresh touches no slot.
struct Memo {
    static constexpr std::size_t kSlots = 16384;  // a power of two

    struct Slot {
        std::uint32_t stamp = 0;
        Entry entry;
    };

    std::vector<Slot> slots = std::vector<Slot>(kSlots);
    std::uint32_t stamp = 1;
    std::size_t entries = 0;
    Entry uncached;  // the answer for a word too long to remember

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

const Entry& lookup(std::string_view word) {
    Memo& memo = thread_scratch<Memo>();
    const std::uint64_t hash = word_hash(word);
    if (word.size() > kStemMemoMaxBytes) {
        memo.uncached.fill(word, hash);
        return memo.uncached;
    }
    for (;;) {
        for (std::size_t pos = hash & (Memo::kSlots - 1);; pos = (pos + 1) & (Memo::kSlots - 1)) {
            Memo::Slot& slot = memo.slots[pos];
            if (slot.stamp != memo.stamp) {
                if (memo.entries >= kStemMemoEntries) {
                    // Start afresh: the words in use come back within a few calls.
                    memo.start_afresh();
                    break;
                }
                ++memo.entries;
                slot.stamp = memo.stamp;
                slot.entry.fill(word, hash);
                return slot.entry;
            }
            if (slot.entry.hash == hash && slot.entry.word == word) {
                return slot.entry;
            }
        }
    }
}

}  // namespace

MemoStem memo_stem(std::string_view word) {
    return lookup(word).view();
}

const std::string& memo_porter_stem(std::string_view word) {
    return lookup(word).stem;
}

}  // namespace scout::detail
