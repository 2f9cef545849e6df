// staged_catalog.cpp: see staged_catalog.hpp.
#include "snapshot/staged_catalog.hpp"

#include <mutex>

namespace scout::detail {

std::shared_ptr<const StagedServer> stage_server(
    ServerSpec spec, std::vector<std::optional<std::string>> parameters) {
    auto entry = std::make_shared<StagedServer>();
    for (std::size_t i = 0; i < spec.tools.size(); ++i) {
        std::string name = spec.tools[i].name;
        std::optional<std::string> rendered;
        if (i < parameters.size()) {
            rendered = std::move(parameters[i]);
        }
        entry->tools.emplace(
            std::move(name),
            std::make_shared<const StagedTool>(std::move(spec.tools[i]), std::move(rendered)));
    }
    spec.tools.clear();
    entry->meta = std::move(spec);
    return entry;
}

struct StagedSource::State {
    std::mutex mu;
    std::shared_ptr<const StagedCatalog> staged;  // guarded by mu until set
    std::shared_ptr<const CatalogView> view;      // to stage; released once staged
};

StagedSource::StagedSource(std::shared_ptr<const StagedCatalog> staged)
    : state_(std::make_shared<State>()) {
    state_->staged = std::move(staged);
}

StagedSource::StagedSource(std::shared_ptr<const CatalogView> view)
    : state_(std::make_shared<State>()) {
    state_->view = std::move(view);
}

std::shared_ptr<const StagedCatalog> StagedSource::get() const {
    if (!state_) {
        return nullptr;
    }
    std::lock_guard lock(state_->mu);
    if (!state_->staged) {
        StagedCatalog catalog;
        for (const ServerView& server : state_->view->servers) {
            catalog.emplace(server.name, stage_server(server_spec(*state_->view, server)));
        }
        state_->staged = std::make_shared<const StagedCatalog>(std::move(catalog));
        state_->view.reset();
    }
    return state_->staged;
}

}  // namespace scout::detail
