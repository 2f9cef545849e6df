// bm25_vocabulary.cpp: see bm25_vocabulary.hpp.
#include "sparse/bm25_vocabulary.hpp"

#include <bit>
#include <utility>

namespace scout::detail {

namespace {

/// A base's own terms are copied along by extending() while they are at most this fraction of
/// the table under them; past it, the terms are packed into one table again.
constexpr std::size_t kCarryOneIn = 8;

constexpr std::uint64_t tag_of(std::size_t hash) noexcept {
    return static_cast<std::uint64_t>(hash) & 0xFFFFFFFF00000000ULL;
}

/// Slots for `terms` at most half full, a power of two.
std::size_t slots_for(std::size_t terms) {
    return std::bit_ceil(std::max<std::size_t>(2 * terms, 16));
}

}  // namespace

std::unique_ptr<Bm25Vocabulary> Bm25Vocabulary::of_terms(std::span<const std::string_view> terms) {
    auto out = std::make_unique<Bm25Vocabulary>();
    std::size_t bytes = 0;
    for (std::string_view t : terms) {
        bytes += t.size();
    }
    out->chars_.reserve(bytes);
    out->ends_.reserve(terms.size());
    out->slots_.assign(slots_for(terms.size()), 0);
    std::vector<std::uint64_t>& slots = out->slots_;
    const std::size_t mask = slots.size() - 1;
    for (std::string_view t : terms) {
        // One probe sequence both checks that the term is new and finds its slot.
        const auto hash = static_cast<std::size_t>(word_hash(t));
        const std::uint64_t tag = tag_of(hash);
        std::size_t s = hash & mask;
        for (; slots[s] != 0; s = (s + 1) & mask) {
            if ((slots[s] & 0xFFFFFFFF00000000ULL) == tag &&
                out->own_term(static_cast<std::size_t>(slots[s] & 0xFFFFFFFFULL) - 1) == t) {
                return nullptr;
            }
        }
        out->chars_.append(t);
        out->ends_.push_back(out->chars_.size());
        slots[s] = tag | static_cast<std::uint64_t>(out->ends_.size());
    }
    return out;
}

std::unique_ptr<Bm25Vocabulary> Bm25Vocabulary::extending(
    std::shared_ptr<const Bm25Vocabulary> base) {
    auto out = std::make_unique<Bm25Vocabulary>();
    if (!base || base->empty()) {
        return out;
    }
    if (!base->base_) {
        out->first_ = base->size();
        out->base_ = std::move(base);
        return out;
    }
    if (base->ends_.size() * kCarryOneIn <= base->first_) {
        *out = *base;  // the table under it shared, its own few terms copied
        return out;
    }
    std::vector<std::string_view> all;
    all.reserve(base->size());
    for (std::size_t id = 0; id < base->size(); ++id) {
        all.push_back(base->term(static_cast<TermId>(id)));
    }
    std::shared_ptr<const Bm25Vocabulary> packed = of_terms(all);  // unique already
    out->first_ = packed->size();
    out->base_ = std::move(packed);
    return out;
}

std::optional<TermId> Bm25Vocabulary::find(std::string_view term, std::size_t hash) const {
    if (base_) {
        if (std::optional<TermId> id = base_->find_own(term, hash)) {
            return id;
        }
    }
    if (std::optional<TermId> id = find_own(term, hash)) {
        return static_cast<TermId>(first_ + *id);
    }
    return std::nullopt;
}

std::optional<TermId> Bm25Vocabulary::find_own(std::string_view term,
                                               std::size_t hash) const noexcept {
    if (slots_.empty()) {
        return std::nullopt;
    }
    const std::size_t mask = slots_.size() - 1;
    const std::uint64_t tag = tag_of(hash);
    for (std::size_t s = hash & mask;; s = (s + 1) & mask) {
        const std::uint64_t slot = slots_[s];
        if (slot == 0) {
            return std::nullopt;
        }
        if ((slot & 0xFFFFFFFF00000000ULL) == tag) {
            const std::size_t i = static_cast<std::size_t>(slot & 0xFFFFFFFFULL) - 1;
            if (own_term(i) == term) {
                return static_cast<TermId>(i);
            }
        }
    }
}

void Bm25Vocabulary::insert_slot(std::size_t hash, std::size_t i) noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = hash & mask;
    while (slots_[s] != 0) {
        s = (s + 1) & mask;
    }
    slots_[s] = tag_of(hash) | static_cast<std::uint64_t>(i + 1);
}

void Bm25Vocabulary::grow(std::size_t capacity) {
    slots_.assign(capacity, 0);
    for (std::size_t i = 0; i < ends_.size(); ++i) {
        insert_slot(static_cast<std::size_t>(word_hash(own_term(i))), i);
    }
}

TermId Bm25Vocabulary::add(std::string_view term, std::size_t hash) {
    if (2 * (ends_.size() + 1) > slots_.size()) {
        grow(slots_for(ends_.size() + 1));
    }
    chars_.append(term);
    ends_.push_back(chars_.size());
    insert_slot(hash, ends_.size() - 1);
    return static_cast<TermId>(first_ + ends_.size() - 1);
}

std::string_view Bm25Vocabulary::term(TermId id) const noexcept {
    if (id < first_) {
        return base_->own_term(id);
    }
    return own_term(id - first_);
}

std::size_t Bm25Vocabulary::own_memory_bytes() const noexcept {
    return chars_.capacity() + ends_.capacity() * sizeof(std::size_t) +
           slots_.capacity() * sizeof(std::uint64_t);
}

std::size_t Bm25Vocabulary::memory_bytes() const noexcept {
    return own_memory_bytes() + (base_ ? base_->own_memory_bytes() : 0);
}

}  // namespace scout::detail
