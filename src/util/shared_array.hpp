// shared_array.hpp: a read-only array of plain numbers that either owns its elements (a
// PodVector, as a build makes them) or views someone else's (an index file's mapping, kept alive
// by an owner pointer), so an opened index searches the file's pages in place instead of a copy.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <utility>

#include "util/pod_vector.hpp"

namespace scout::detail {

template <class T>
class SharedArray {
public:
    SharedArray() = default;
    // NOLINTNEXTLINE(google-explicit-constructor): a built array is an owned SharedArray
    SharedArray(PodVector<T> elements) noexcept : own_(std::move(elements)) {}
    /// Views `elements`, which `owner` keeps alive (null: the caller does, for as long as this
    /// array is read).
    SharedArray(std::span<const T> elements, std::shared_ptr<const void> owner) noexcept
        : view_(elements), owner_(std::move(owner)), viewing_(true) {}

    /// The elements as a vector this array owns, to be written: a viewed array copies them
    /// first.
    PodVector<T>& owned() {
        if (viewing_) {
            own_.assign(view_.begin(), view_.end());
            view_ = {};
            owner_.reset();
            viewing_ = false;
        }
        return own_;
    }

    [[nodiscard]] const T* data() const noexcept { return viewing_ ? view_.data() : own_.data(); }
    [[nodiscard]] std::size_t size() const noexcept {
        return viewing_ ? view_.size() : own_.size();
    }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    [[nodiscard]] std::span<const T> span() const noexcept { return {data(), size()}; }
    const T& operator[](std::size_t i) const noexcept { return data()[i]; }
    [[nodiscard]] const T* begin() const noexcept { return data(); }
    [[nodiscard]] const T* end() const noexcept { return data() + size(); }
    /// True when the elements are someone else's (an index file's).
    [[nodiscard]] bool viewing() const noexcept { return viewing_; }

private:
    PodVector<T> own_;
    std::span<const T> view_;
    std::shared_ptr<const void> owner_;
    bool viewing_ = false;
};

}  // namespace scout::detail
