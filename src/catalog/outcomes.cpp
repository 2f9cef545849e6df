// outcomes.cpp: Catalog::record_outcome and its fleet form (analyse_outcome, replay_outcomes).
// Outcomes are few next to searches, so each change copies the bounded prior, changes the copy
// and publishes it: searches never see a half-made change.
#include <mutex>

#include "catalog/catalog_impl.hpp"
#include "util/printable.hpp"
#include "util/utf8.hpp"

namespace scout {

Result<Catalog::AnalysedOutcome> Catalog::analyse_outcome(std::string_view query,
                                                          const ToolKey& tool,
                                                          Outcome outcome) const {
    if (query.empty() || query.size() > Searcher::kMaxQueryBytes || !detail::is_valid_utf8(query)) {
        return Status{Errc::invalid_argument,
                      "the query of an outcome is empty, too long or not UTF-8"};
    }
    if (outcome != Outcome::success && outcome != Outcome::failure) {
        return Status{Errc::invalid_argument, "unknown outcome"};
    }
    const std::shared_ptr<const detail::Snapshot> snap = impl_->slot.load();
    if (!searcher().find(tool.server, tool.tool)) {
        return Status{Errc::not_found,
                      "no indexed tool '" + detail::clipped(tool.tool) + "' of server '" +
                          detail::clipped(tool.server) + "'"};
    }
    try {
        return AnalysedOutcome{snap->analyzer.analyze(query), tool, outcome};
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory while analysing an outcome"};
    }
}

Status Catalog::replay_outcomes(std::span<const AnalysedOutcome> outcomes) {
    for (const AnalysedOutcome& o : outcomes) {
        if (o.outcome != Outcome::success && o.outcome != Outcome::failure) {
            return {Errc::invalid_argument, "unknown outcome"};
        }
        if (o.tool.server.empty() || o.tool.tool.empty()) {
            return {Errc::invalid_argument, "an outcome names no tool"};
        }
    }
    if (outcomes.empty()) {
        return {};
    }
    try {
        // One recorder at a time: the copy-change-publish must not lose a concurrent outcome.
        std::lock_guard writer(impl_->outcome_write_mu);
        const std::shared_ptr<const detail::OutcomePrior> current = impl_->load_outcomes();
        auto next = current ? std::make_shared<detail::OutcomePrior>(*current)
                            : std::make_shared<detail::OutcomePrior>();
        for (const AnalysedOutcome& o : outcomes) {
            next->record(o.terms,
                         detail::outcome_tool_key(o.tool.server, o.tool.tool),
                         o.outcome == Outcome::success);
        }
        std::shared_ptr<const detail::OutcomePrior> retired;
        {
            std::lock_guard lock(impl_->outcome_mu);
            retired = std::exchange(impl_->outcomes, std::move(next));
        }
        return {};
    } catch (const std::bad_alloc&) {
        return {Errc::internal, "out of memory while recording an outcome"};
    }
}

Status Catalog::record_outcome(std::string_view query, const ToolKey& tool, Outcome outcome) {
    auto analysed = analyse_outcome(query, tool, outcome);
    if (!analysed.ok()) {
        return analysed.status();
    }
    return replay_outcomes(std::span<const AnalysedOutcome>(&analysed.value(), 1));
}

}  // namespace scout
