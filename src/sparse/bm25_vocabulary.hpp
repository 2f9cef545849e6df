// bm25_vocabulary.hpp: the BM25 index's term -> TermId table. Terms are packed into one buffer
// and found through an open-addressing table of (hash tag, index) words, so a large vocabulary
// is built (an index file's, on open) with no allocation per term and released as a few
// arrays. A vocabulary can extend a shared one (Bm25Vocabulary::extending): it keeps the shared
// table as it is and adds only its own terms, so a build that interns a few new terms does not
// copy what snapshots already share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/word_hash.hpp"

namespace scout::detail {

using TermId = std::uint32_t;

/// A term whose word_hash is already known, for a vocabulary lookup that does not hash again.
struct PrehashedTerm {
    std::string_view text;
    std::size_t hash = 0;
};

/// Term -> TermId, ids 0, 1, 2, ... in the order terms were added. Immutable once an index holds
/// it, so snapshots can share one; add() only to a vocabulary nobody else sees yet.
class Bm25Vocabulary {
public:
    Bm25Vocabulary() = default;

    /// The vocabulary of `terms`, each term's id its position; null when two terms are equal.
    [[nodiscard]] static std::unique_ptr<Bm25Vocabulary> of_terms(
        std::span<const std::string_view> terms);
    /// A vocabulary with every term of `base` under the same ids, to which add() appends. It
    /// shares `base`'s table instead of copying it; at most one shared table lies under any
    /// vocabulary (terms added over one are copied along until they are an eighth of it, then
    /// everything is packed into one table again), so a lookup probes at most two tables.
    [[nodiscard]] static std::unique_ptr<Bm25Vocabulary> extending(
        std::shared_ptr<const Bm25Vocabulary> base);

    [[nodiscard]] std::optional<TermId> find(std::string_view term) const {
        return find(term, static_cast<std::size_t>(word_hash(term)));
    }
    [[nodiscard]] std::optional<TermId> find(const PrehashedTerm& term) const {
        return find(term.text, term.hash);
    }
    /// `hash` must be word_hash(term).
    [[nodiscard]] std::optional<TermId> find(std::string_view term, std::size_t hash) const;

    /// Adds a term the vocabulary does not hold; its id is size() before the call.
    TermId add(std::string_view term, std::size_t hash);
    TermId add(std::string_view term) {
        return add(term, static_cast<std::size_t>(word_hash(term)));
    }
    /// The id of `term`, added when missing.
    TermId intern(std::string_view term, std::size_t hash) {
        const std::optional<TermId> id = find(term, hash);
        return id ? *id : add(term, hash);
    }

    [[nodiscard]] std::size_t size() const noexcept { return first_ + ends_.size(); }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    /// The term of `id` (below size()).
    [[nodiscard]] std::string_view term(TermId id) const noexcept;
    /// Bytes held by this vocabulary's own terms and table (not the shared one under it).
    [[nodiscard]] std::size_t own_memory_bytes() const noexcept;
    /// Bytes of the whole vocabulary, the shared table under it included.
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

private:
    [[nodiscard]] std::optional<TermId> find_own(std::string_view term,
                                                 std::size_t hash) const noexcept;
    [[nodiscard]] std::string_view own_term(std::size_t i) const noexcept {
        const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
        return {chars_.data() + begin, ends_[i] - begin};
    }
    void insert_slot(std::size_t hash, std::size_t i) noexcept;
    void grow(std::size_t capacity);

    /// The shared table under this one (itself without a base): ids [0, first_).
    std::shared_ptr<const Bm25Vocabulary> base_;
    std::size_t first_ = 0;
    /// This vocabulary's own terms, ids first_ + i: their bytes back to back, and where each
    /// ends.
    std::string chars_;
    std::vector<std::size_t> ends_;
    /// Open addressing, linear probing, at most half full: 0 is an empty slot, otherwise the
    /// hash's upper 32 bits above (own index + 1).
    std::vector<std::uint64_t> slots_;
};

}  // namespace scout::detail
