// catalog_impl.hpp: the state behind a Catalog, shared by the writer (catalog.cpp) and the index
// file reader/writer (persist/), which need the staged state, the cache and the slot.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "scout/catalog.hpp"
#include "snapshot/snapshot_builder.hpp"
#include "snapshot/snapshot_slot.hpp"
#include "telemetry/telemetry.hpp"

namespace scout {

struct Catalog::Impl {
    CatalogOptions options;
    std::shared_ptr<Embedder> embedder;
    detail::SnapshotSlot slot;
    std::shared_ptr<detail::Telemetry> telemetry = std::make_shared<detail::Telemetry>();

    std::mutex write_mu;  // guards everything below
    detail::StagedCatalog staged;
    detail::EmbeddingCache cache;
    detail::DocumentCache documents;
    std::uint64_t generation = 0;

    static detail::StagedServer stage(ServerSpec spec) {
        detail::StagedServer entry;
        for (ToolSpec& tool : spec.tools) {
            std::string name = tool.name;
            entry.tools.emplace(std::move(name), std::move(tool));
        }
        spec.tools.clear();
        entry.meta = std::move(spec);
        return entry;
    }

    /// Builds and publishes the next snapshot from `staged`. Call with write_mu held.
    [[nodiscard]] Result<CommitInfo> commit_locked();
};

}  // namespace scout
