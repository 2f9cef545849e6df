// pinned.hpp: what a Searcher holds: one published snapshot, the embedder its queries use and
// the statistics of the catalog that issued it, and its outcome prior as it was then. The Catalog
// builds it; the Searcher reads it.
#pragma once

#include <memory>

#include "scout/embedder.hpp"
#include "scout/searcher.hpp"

#include "outcomes/outcome_prior.hpp"
#include "snapshot/snapshot.hpp"
#include "telemetry/telemetry.hpp"

namespace scout {

// Hidden: a private part of an exported class, never part of libscout's ABI.
struct [[gnu::visibility("hidden")]] Searcher::Pinned {
    std::shared_ptr<const detail::Snapshot> snapshot;
    std::shared_ptr<Embedder> embedder;            ///< null: no dense branch
    std::shared_ptr<detail::Telemetry> telemetry;  ///< null: searches are not recorded
    std::shared_ptr<const detail::OutcomePrior> outcomes = nullptr;  ///< null: none recorded
};

}  // namespace scout
