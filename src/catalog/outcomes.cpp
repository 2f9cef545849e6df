// outcomes.cpp: Catalog::record_outcome. Outcomes are few next to searches, so each one copies
// the bounded prior, changes the copy and publishes it: searches never see a half-made change.
#include <mutex>

#include "catalog/catalog_impl.hpp"
#include "util/printable.hpp"
#include "util/utf8.hpp"

namespace scout {

Status Catalog::record_outcome(std::string_view query, const ToolKey& tool, Outcome outcome) {
    if (query.empty() || query.size() > Searcher::kMaxQueryBytes || !detail::is_valid_utf8(query)) {
        return {Errc::invalid_argument, "the query of an outcome is empty, too long or not UTF-8"};
    }
    if (outcome != Outcome::success && outcome != Outcome::failure) {
        return {Errc::invalid_argument, "unknown outcome"};
    }
    const std::shared_ptr<const detail::Snapshot> snap = impl_->slot.load();
    if (!searcher().find(tool.server, tool.tool)) {
        return {Errc::not_found,
                "no indexed tool '" + detail::clipped(tool.tool) + "' of server '" +
                    detail::clipped(tool.server) + "'"};
    }
    try {
        const std::vector<std::string> terms = snap->analyzer.analyze(query);
        const std::string key = detail::outcome_tool_key(tool.server, tool.tool);
        // One recorder at a time: the copy-change-publish must not lose a concurrent outcome.
        std::lock_guard writer(impl_->outcome_write_mu);
        const std::shared_ptr<const detail::OutcomePrior> current = impl_->load_outcomes();
        auto next = current ? std::make_shared<detail::OutcomePrior>(*current)
                            : std::make_shared<detail::OutcomePrior>();
        next->record(terms, key, outcome == Outcome::success);
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

}  // namespace scout
