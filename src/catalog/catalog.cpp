// catalog.cpp: the writer. Staged state under one mutex; commit() builds the next snapshot
// off to the side and publishes it through the slot, so searches never see a partial catalog.
#include <mutex>
#include <set>

#include "catalog/catalog_impl.hpp"
#include "document/validate.hpp"
#include "search/lexicon.hpp"
#include "search/pinned.hpp"
#include "snapshot/seed_documents.hpp"
#include "util/printable.hpp"

namespace scout {

Catalog::Catalog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;
Catalog::~Catalog() = default;

Result<Catalog> Catalog::create(CatalogOptions options, std::shared_ptr<Embedder> embedder) {
    // The bounds an index file is read back with (the option table), so every catalog that can
    // be made can also be saved and opened again.
    if (Status s = check_options(options); !s.ok()) {
        return s;
    }
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    impl->embedder = std::move(embedder);
    auto empty = std::make_shared<detail::Snapshot>();
    empty->options = options;
    empty->analyzer = detail::Analyzer(options.analyzer);
    impl->slot.publish(std::move(empty));
    return Catalog(std::move(impl));
}

Status Catalog::upsert_server(ServerSpec server) {
    std::vector<std::optional<std::string>> parameters;
    Status s = detail::validate_server(server, &parameters);
    if (!s.ok()) {
        return s;
    }
    std::lock_guard lock(impl_->write_mu);
    std::string name = server.name;
    impl_->edit_staged()[std::move(name)] = Impl::stage(std::move(server), std::move(parameters));
    return {};
}

Status Catalog::upsert_servers(const CatalogSpec& spec) {
    std::set<std::string_view> seen;
    std::vector<std::vector<std::optional<std::string>>> parameters(spec.servers.size());
    for (std::size_t i = 0; i < spec.servers.size(); ++i) {
        const ServerSpec& server = spec.servers[i];
        if (!seen.insert(server.name).second) {
            return {Errc::invalid_argument,
                    "duplicate server name '" + detail::clipped(server.name) + "'"};
        }
        Status s = detail::validate_server(server, &parameters[i]);
        if (!s.ok()) {
            return s;
        }
    }
    std::lock_guard lock(impl_->write_mu);
    for (std::size_t i = 0; i < spec.servers.size(); ++i) {
        impl_->edit_staged()[spec.servers[i].name] =
            Impl::stage(spec.servers[i], std::move(parameters[i]));
    }
    return {};
}

Status Catalog::remove_server(std::string_view server) {
    std::lock_guard lock(impl_->write_mu);
    detail::StagedCatalog& staged = impl_->edit_staged();
    auto it = staged.find(server);
    if (it == staged.end()) {
        return {Errc::not_found, "unknown server '" + detail::clipped(server) + "'"};
    }
    staged.erase(it);
    return {};
}

Status Catalog::set_server_status(std::string_view server, ServerStatus status) {
    std::lock_guard lock(impl_->write_mu);
    detail::StagedCatalog& staged = impl_->edit_staged();
    auto it = staged.find(server);
    if (it == staged.end()) {
        return {Errc::not_found, "unknown server '" + detail::clipped(server) + "'"};
    }
    Impl::edit_server(it).meta.status = status;
    return {};
}

Status Catalog::upsert_tool(std::string_view server, ToolSpec tool) {
    std::lock_guard lock(impl_->write_mu);
    detail::StagedCatalog& staged = impl_->edit_staged();
    auto it = staged.find(server);
    if (it == staged.end()) {
        return {Errc::not_found, "unknown server '" + detail::clipped(server) + "'"};
    }
    std::optional<std::string> parameters;
    Status s = detail::validate_tool(it->second->meta, tool, &parameters);
    if (!s.ok()) {
        return s;
    }
    std::string name = tool.name;
    Impl::edit_server(it).tools[std::move(name)] =
        std::make_shared<const detail::StagedTool>(std::move(tool), std::move(parameters));
    return {};
}

Status Catalog::remove_tool(std::string_view server, std::string_view tool) {
    std::lock_guard lock(impl_->write_mu);
    detail::StagedCatalog& staged = impl_->edit_staged();
    auto it = staged.find(server);
    if (it == staged.end()) {
        return {Errc::not_found, "unknown server '" + detail::clipped(server) + "'"};
    }
    if (!it->second->tools.contains(tool)) {
        return {
            Errc::not_found,
            "server '" + detail::clipped(server) + "' has no tool '" + detail::clipped(tool) + "'"};
    }
    detail::StagedServer& edited = Impl::edit_server(it);
    edited.tools.erase(edited.tools.find(tool));
    return {};
}

Result<CommitInfo> Catalog::Impl::commit_locked(const ProgressCallback& progress) {
    try {
        if (options.expansion.lexicon) {
            (void)detail::default_lexicon();  // built here, so no search pays for it
        }
        // The snapshot keeps its own copy of the staged state (or shares the unedited one an
        // open left): later edits must not leak into what save() writes for this generation.
        auto source =
            unedited ? unedited.get() : std::make_shared<const detail::StagedCatalog>(staged);
        const std::shared_ptr<const detail::Snapshot> previous = slot.load();
        if (seed_pending && previous) {
            seed_pending = false;
            (void)detail::seed_documents(*previous, documents);  // false: render them all
        }
        auto built = detail::build_snapshot(std::move(source),
                                            options,
                                            embedder.get(),
                                            cache,
                                            documents,
                                            previous.get(),
                                            generation + 1,
                                            progress);
        ++generation;
        slot.publish(std::move(built.snapshot));
        return built.info;
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory while building the index"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("index build failed: ") + e.what()};
    }
}

Result<CommitInfo> Catalog::commit(const ProgressCallback& progress) {
    std::lock_guard lock(impl_->write_mu);
    return impl_->commit_locked(progress);
}

Searcher Catalog::searcher() const {
    return Searcher(std::make_shared<const Searcher::Pinned>(Searcher::Pinned{
        impl_->slot.load(), impl_->embedder, impl_->telemetry, impl_->load_outcomes()}));
}

void Catalog::set_event_sink(std::shared_ptr<EventSink> sink, EventOptions options) {
    impl_->telemetry->set_sink(std::move(sink), options);
}

SearchStats Catalog::stats() const noexcept {
    return impl_->telemetry->stats();
}

const CatalogOptions& Catalog::options() const noexcept {
    return impl_->options;
}

std::string_view version() noexcept {
    return SCOUT_VERSION_STRING;
}

}  // namespace scout
