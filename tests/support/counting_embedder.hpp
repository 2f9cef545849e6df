// counting_embedder.hpp: a test embedder that records every text it is asked to embed and can
// be told to fail.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "scout/embedder.hpp"

namespace scout::test {

class CountingEmbedder final : public Embedder {
public:
    explicit CountingEmbedder(std::size_t dim = 8) : inner_(dim) {}
    [[nodiscard]] std::string model_id() const override { return "counting-" + inner_.model_id(); }
    [[nodiscard]] std::size_t dim() const override { return inner_.dim(); }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override {
        {
            std::lock_guard lock(mutex_);
            seen_.insert(seen_.end(), texts.begin(), texts.end());
        }
        if (fail.load()) {
            return Status{Errc::unavailable, "told to fail"};
        }
        return inner_.embed(texts);
    }
    [[nodiscard]] std::vector<std::string> seen() const {
        std::lock_guard lock(mutex_);
        return seen_;
    }
    void reset() {
        std::lock_guard lock(mutex_);
        seen_.clear();
    }
    std::atomic<bool> fail{false};

private:
    HashingEmbedder inner_;
    mutable std::mutex mutex_;
    std::vector<std::string> seen_;
};

}  // namespace scout::test
