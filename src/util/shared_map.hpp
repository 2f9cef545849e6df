// shared_map.hpp: an ordered map from strings whose copies share their contents. The entries lie
// in buckets of consecutive keys; a copy copies one pointer per bucket, and an edit copies only
// the bucket it changes when a copy still shares it. The writer's catalog is copied into every
// snapshot it publishes: at 10,000 servers that copy (and freeing the retired one) would
// otherwise be 20,000 node allocations per commit, however small the edit.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scout::detail {

template <class V>
class SharedMap {
    using Bucket = std::map<std::string, V, std::less<>>;
    /// A bucket this large is split in two on insertion.
    static constexpr std::size_t kSplitAt = 128;

    struct Slot {
        std::shared_ptr<Bucket> bucket;  // never empty
        /// Whether this map alone holds `bucket`, so may change it in place. Cleared (on the
        /// copied map too) by copying: atomic, since two threads may copy one const map.
        mutable std::atomic<bool> own{true};

        Slot() = default;
        explicit Slot(std::shared_ptr<Bucket> b) : bucket(std::move(b)) {}
        Slot(const Slot& other) : bucket(other.bucket), own(false) {
            if (other.own.load(std::memory_order_relaxed)) {
                other.own.store(false, std::memory_order_relaxed);
            }
        }
        Slot(Slot&& other) noexcept
            : bucket(std::move(other.bucket)), own(other.own.load(std::memory_order_relaxed)) {}
        Slot& operator=(const Slot& other) {
            if (this != &other) {
                *this = Slot(other);
            }
            return *this;
        }
        Slot& operator=(Slot&& other) noexcept {
            bucket = std::move(other.bucket);
            own.store(other.own.load(std::memory_order_relaxed), std::memory_order_relaxed);
            return *this;
        }
        ~Slot() = default;
    };

    template <bool Const>
    class Iter {
        friend class Iter<!Const>;
        using Inner =
            std::conditional_t<Const, typename Bucket::const_iterator, typename Bucket::iterator>;
        using Slots = std::conditional_t<Const, const std::vector<Slot>, std::vector<Slot>>;

    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = typename Bucket::value_type;
        using difference_type = std::ptrdiff_t;
        using reference = std::conditional_t<Const, const value_type&, value_type&>;
        using pointer = std::conditional_t<Const, const value_type*, value_type*>;

        Iter() = default;
        Iter(Slots* slots, std::size_t slot, Inner it) : slots_(slots), slot_(slot), it_(it) {}
        reference operator*() const { return *it_; }
        pointer operator->() const { return &*it_; }
        Iter& operator++() {
            if (++it_ == (*slots_)[slot_].bucket->end() && ++slot_ < slots_->size()) {
                it_ = (*slots_)[slot_].bucket->begin();
            }
            return *this;
        }
        Iter operator++(int) {
            Iter was = *this;
            ++*this;
            return was;
        }
        /// A mutable iterator is also a const one (so it compares with end()).
        operator Iter<true>() const {  // NOLINT(google-explicit-constructor)
            return {slots_, slot_, it_};
        }
        friend bool operator==(const Iter& a, const Iter& b) {
            return a.slot_ == b.slot_ &&
                   (a.slots_ == nullptr || a.slot_ >= a.slots_->size() || a.it_ == b.it_);
        }

    private:
        Slots* slots_ = nullptr;
        std::size_t slot_ = 0;
        Inner it_{};
    };

public:
    using value_type = typename Bucket::value_type;
    using iterator = Iter<false>;
    using const_iterator = Iter<true>;

    SharedMap() = default;
    SharedMap(const SharedMap&) = default;  // shares every bucket (Slot's copy)
    SharedMap(SharedMap&&) noexcept = default;
    SharedMap& operator=(const SharedMap&) = default;
    SharedMap& operator=(SharedMap&&) noexcept = default;
    ~SharedMap() = default;

    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

    [[nodiscard]] const_iterator begin() const {
        return slots_.empty() ? end() : const_iterator(&slots_, 0, slots_[0].bucket->cbegin());
    }
    [[nodiscard]] const_iterator end() const { return {&slots_, slots_.size(), {}}; }

    [[nodiscard]] const_iterator find(std::string_view key) const {
        const std::size_t s = slot_of(key);
        if (s < slots_.size()) {
            auto it = slots_[s].bucket->find(key);
            if (it != slots_[s].bucket->end()) {
                return {&slots_, s, it};
            }
        }
        return end();
    }
    /// A found entry's value may be assigned through the iterator.
    [[nodiscard]] iterator find(std::string_view key) {
        const std::size_t s = slot_of(key);
        if (s < slots_.size() && slots_[s].bucket->find(key) != slots_[s].bucket->end()) {
            Bucket& bucket = owned(s);
            return {&slots_, s, bucket.find(key)};
        }
        return {&slots_, slots_.size(), {}};
    }
    [[nodiscard]] bool contains(std::string_view key) const { return find(key) != end(); }

    /// Whether `other` has the same keys in the same order, with same(mine, theirs) true for the
    /// values under each key. Buckets the two maps share are skipped whole: comparing a catalog
    /// with the copy it was edited from walks only the buckets the edits copied.
    template <class Same>
    [[nodiscard]] bool same_entries(const SharedMap& other, Same&& same) const {
        if (size_ != other.size_) {
            return false;
        }
        const auto equal = [&same](const value_type& x, const value_type& y) {
            return x.first == y.first && same(x.second, y.second);
        };
        if (aligned_with(other)) {
            for (std::size_t s = 0; s < slots_.size(); ++s) {
                const Bucket& mine = *slots_[s].bucket;
                const Bucket& theirs = *other.slots_[s].bucket;
                if (&mine != &theirs &&
                    !std::equal(mine.begin(), mine.end(), theirs.begin(), equal)) {
                    return false;
                }
            }
            return true;
        }
        return std::equal(begin(), end(), other.begin(), equal);
    }

    V& operator[](std::string_view key) { return *emplace(key).first; }

    /// Inserts (key, V(value...)) unless key is present (then nothing is constructed or moved);
    /// the entry's value and whether it was added.
    template <class... Args>
    std::pair<V*, bool> emplace(std::string_view key, Args&&... value) {
        if (slots_.empty()) {
            auto bucket = std::make_shared<Bucket>();
            V* at =
                &bucket->try_emplace(std::string(key), std::forward<Args>(value)...).first->second;
            slots_.emplace_back(std::move(bucket));
            size_ = 1;
            return {at, true};
        }
        const std::size_t s = slot_of(key);
        Bucket& bucket = owned(s);
        auto [it, added] = bucket.try_emplace(std::string(key), std::forward<Args>(value)...);
        V* at = &it->second;
        if (added) {
            ++size_;
            if (bucket.size() >= kSplitAt) {
                split(s);  // node-based: `at` stays valid
            }
        }
        return {at, added};
    }

    void erase(iterator it) {
        const std::size_t s = slot_index(it);
        const std::string key = it->first;  // `it` may be in the bucket owned() replaces
        Bucket& bucket = owned(s);
        bucket.erase(key);
        --size_;
        if (bucket.empty()) {
            slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(s));
        }
    }

private:
    /// The slot whose keys range holds `key`: the last bucket whose first key is <= key (the
    /// first bucket when key precedes them all); slots_.size() when there are none.
    [[nodiscard]] std::size_t slot_of(std::string_view key) const {
        if (slots_.empty()) {
            return 0;
        }
        auto after = std::upper_bound(
            slots_.begin(), slots_.end(), key, [](std::string_view k, const Slot& slot) {
                return k < std::string_view(slot.bucket->begin()->first);
            });
        return after == slots_.begin() ? 0 : static_cast<std::size_t>(after - slots_.begin()) - 1;
    }
    [[nodiscard]] std::size_t slot_index(const iterator& it) const {
        return slot_of(std::string_view(it->first));
    }
    /// Whether slot s of each map holds as many entries (so their entries pair up by slot).
    [[nodiscard]] bool aligned_with(const SharedMap& other) const noexcept {
        if (slots_.size() != other.slots_.size()) {
            return false;
        }
        for (std::size_t s = 0; s < slots_.size(); ++s) {
            if (slots_[s].bucket->size() != other.slots_[s].bucket->size()) {
                return false;
            }
        }
        return true;
    }
    /// Slot s's bucket, copied first unless this map alone holds it.
    Bucket& owned(std::size_t s) {
        Slot& slot = slots_[s];
        if (!slot.own.load(std::memory_order_relaxed)) {
            slot.bucket = std::make_shared<Bucket>(*slot.bucket);
            slot.own.store(true, std::memory_order_relaxed);
        }
        return *slot.bucket;
    }
    /// Moves the upper half of slot s's (owned) bucket into a new slot after it.
    void split(std::size_t s) {
        Bucket& bucket = *slots_[s].bucket;
        auto upper = std::make_shared<Bucket>();
        auto middle = std::next(bucket.begin(), static_cast<std::ptrdiff_t>(bucket.size() / 2));
        while (middle != bucket.end()) {
            upper->insert(upper->end(), bucket.extract(middle++));
        }
        slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(s) + 1, Slot(std::move(upper)));
    }

    std::vector<Slot> slots_;
    std::size_t size_ = 0;
};

}  // namespace scout::detail
