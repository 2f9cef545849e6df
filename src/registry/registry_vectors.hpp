// registry_vectors.hpp: an Embedder in front of the host's, answering documents with the
// registry's vectors by the SHA-256 of their text. A catalog that commits through it embeds
// only what the registry lacks; query texts, which the registry never holds, go to the host's
// embedder as before.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scout/embedder.hpp"

namespace scout::detail {

class RegistryVectors final : public Embedder {
public:
    /// Asked for the vectors of content hashes the local table lacks, before anything is
    /// embedded; returns (hash, vector) pairs it found. Called under no lock of this class.
    using Fetcher = std::function<std::vector<std::pair<std::string, std::vector<float>>>(
        const std::string& model_id, const std::vector<std::string>& hashes)>;

    /// `keep_embedded`: remember what the host embedder made (a push stores it). Off for a
    /// replica, whose misses are mostly queries.
    RegistryVectors(std::shared_ptr<Embedder> inner, bool keep_embedded)
        : inner_(std::move(inner)), keep_embedded_(keep_embedded) {}

    /// The registry model's id while one is pinned (its vectors are what documents get), else
    /// the host embedder's.
    [[nodiscard]] std::string model_id() const override;
    [[nodiscard]] std::size_t dim() const override { return inner_->dim(); }
    [[nodiscard]] Result<std::vector<float>> embed(std::span<const std::string> texts) override;
    /// Forwarded unless a registry model is pinned: its fitted state came with it.
    void fit(std::span<const std::string> corpus) override;
    /// False while a registry model is pinned (fit() then changes nothing), else the host's.
    [[nodiscard]] bool reads_corpus() const override {
        return pinned().empty() && inner_->reads_corpus();
    }
    [[nodiscard]] std::string fitted_state() const override { return inner_->fitted_state(); }
    bool restore_fitted_state(std::string_view state) override;
    [[nodiscard]] std::shared_ptr<const WordVectors> word_vectors() const override {
        return inner_->word_vectors();
    }

    /// Makes the registry model `model_id` (with its fitted state) the one documents are
    /// answered for, when the host embedder is that model or becomes it by restoring `state`.
    /// False, pinning nothing, otherwise. Empties the table when the model changes.
    bool pin(const std::string& model_id, const std::string& state);
    [[nodiscard]] std::string pinned() const;
    void add(std::string hash, std::vector<float> vector);
    void set_fetcher(Fetcher fetcher) { fetcher_ = std::move(fetcher); }
    /// With keep_embedded: the vectors embedded here (not found in the table nor by the
    /// fetcher) since last taken.
    [[nodiscard]] std::vector<std::pair<std::string, std::vector<float>>> take_embedded();
    [[nodiscard]] std::size_t reused_count() const noexcept { return reused_count_.load(); }

private:
    std::shared_ptr<Embedder> inner_;
    bool keep_embedded_;
    Fetcher fetcher_;
    mutable std::mutex mutex_;
    std::string pinned_;
    std::unordered_map<std::string, std::vector<float>> table_;
    std::vector<std::pair<std::string, std::vector<float>>> embedded_;
    std::atomic<std::size_t> reused_count_{0};
};

}  // namespace scout::detail
