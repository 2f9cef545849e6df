// catalog_impl.hpp: the state behind a Catalog, shared by the writer (catalog.cpp) and its index
// file (catalog_file.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "scout/catalog.hpp"

#include "outcomes/outcome_prior.hpp"
#include "snapshot/snapshot_builder.hpp"
#include "snapshot/snapshot_slot.hpp"
#include "telemetry/telemetry.hpp"

namespace scout {
namespace detail {
struct StoredIndex;
}  // namespace detail

// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] Catalog::Impl {
    CatalogOptions options;
    std::shared_ptr<Embedder> embedder;
    detail::SnapshotSlot slot;
    std::shared_ptr<detail::Telemetry> telemetry = std::make_shared<detail::Telemetry>();

    /// Learning from executions: replaced (copy, change, publish) by record_outcome; searchers
    /// pin the current one. Null until an outcome is recorded or opened.
    std::mutex outcome_write_mu;    // one record_outcome at a time
    mutable std::mutex outcome_mu;  // guards the pointer only
    std::shared_ptr<const detail::OutcomePrior> outcomes;
    [[nodiscard]] std::shared_ptr<const detail::OutcomePrior> load_outcomes() const {
        std::lock_guard lock(outcome_mu);
        return outcomes;
    }

    std::mutex write_mu;  // guards everything below
    /// The writer's state. Right after an index file is opened it equals the published
    /// snapshot's source, which `unedited` then shares instead of a copy (half the memory and a
    /// copy of every tool less; staged from the file only when first needed); the first edit
    /// copies it.
    detail::StagedCatalog staged;
    detail::StagedSource unedited;
    /// `staged`, ready to be changed.
    detail::StagedCatalog& edit_staged() {
        if (unedited) {
            staged = *unedited.get();
            unedited = {};
        }
        return staged;
    }
    detail::EmbeddingCache cache;  ///< document vectors by model and text
    detail::DocumentCache documents;
    std::uint64_t generation = 0;
    /// Set by open_directly: the next commit first seeds `documents` from the opened snapshot
    /// (detail::seed_documents), so it renders only what changed since the file.
    bool seed_pending = false;

    /// `parameters`: what validate_server rendered for each tool, in order (may be empty).
    static std::shared_ptr<const detail::StagedServer> stage(
        ServerSpec spec, std::vector<std::optional<std::string>> parameters = {}) {
        return detail::stage_server(std::move(spec), std::move(parameters));
    }
    /// The staged server at `it`, ready to be changed: a copy (of its tool pointers), since
    /// published snapshots may share the current one.
    static detail::StagedServer& edit_server(detail::StagedCatalog::iterator it) {
        auto copy = std::make_shared<detail::StagedServer>(*it->second);
        detail::StagedServer& server = *copy;
        it->second = std::move(copy);
        return server;
    }

    /// Builds and publishes the next snapshot from `staged`. Call with write_mu held.
    [[nodiscard]] Result<CommitInfo> commit_locked(const ProgressCallback& progress = {});

    /// Opening an index file (write_mu held) that holds its built indexes: stages the catalog
    /// and publishes a snapshot of the stored indexes, building nothing. False (changing
    /// nothing) when the file lacks them or the embedder is not the stored vectors' model.
    [[nodiscard]] bool open_directly(detail::StoredIndex & stored);
    /// Otherwise (write_mu held): stages every stored server and renders the indexed
    /// documents (ToolId order, the order of the stored vectors) into the document cache.
    [[nodiscard]] Result<std::vector<detail::CachedDocument*>> restore_staged(detail::StoredIndex &
                                                                              stored);
    /// Then, with an embedder, checks it is the stored vectors' model and seeds the embedding
    /// cache with them, so the first commit embeds nothing.
    [[nodiscard]] Status seed_vectors(const detail::StoredIndex& stored,
                                      const std::vector<detail::CachedDocument*>& docs);
};

}  // namespace scout
