// staged_catalog.hpp: the writer's desired state: every server (any status) with its tools,
// ordered by name. The Catalog edits one under its write lock; each snapshot keeps a copy of the
// one it was built from (StagedSource), so the published state can be saved exactly. Servers and
// tools are immutable and shared between those copies (an edit replaces the server it changes), and
// copying a catalog copies one pointer per bucket of servers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scout/types.hpp"

#include "document/catalog_view.hpp"
#include "util/shared_map.hpp"

namespace scout::detail {

/// A tool as staged: its spec, and the parameters field of its document when validation has
/// already rendered it (so a commit need not parse the input schema again).
struct StagedTool : ToolSpec {
    StagedTool() = default;
    explicit StagedTool(ToolSpec spec, std::optional<std::string> rendered = std::nullopt)
        : ToolSpec(std::move(spec)), parameters(std::move(rendered)) {}
    std::optional<std::string> parameters;
};

struct StagedServer {
    ServerSpec meta;  // meta.tools is unused; tools live in the map
    std::map<std::string, std::shared_ptr<const StagedTool>, std::less<>> tools;
};
/// Every staged server by name. Copies share their buckets of servers (util/shared_map.hpp).
using StagedCatalog = SharedMap<std::shared_ptr<const StagedServer>>;

/// `spec` staged: its tools moved into the map, each with what validation rendered for it
/// (`parameters`, in the order of spec.tools; may be shorter, or empty).
[[nodiscard]] std::shared_ptr<const StagedServer> stage_server(
    ServerSpec spec, std::vector<std::optional<std::string>> parameters = {});

/// The staged catalog a snapshot was built from. An opened index file's snapshot stages its
/// catalog on first request (save, the writer's first edit or commit), since staging copies every
/// text of the catalog, which searching it never needs. Copies share the staged catalog;
/// thread-safe.
class StagedSource {
public:
    StagedSource() = default;
    explicit StagedSource(std::shared_ptr<const StagedCatalog> staged);
    /// Stages `view` on the first get().
    explicit StagedSource(std::shared_ptr<const CatalogView> view);
    /// The staged catalog; null for an empty source.
    [[nodiscard]] std::shared_ptr<const StagedCatalog> get() const;
    explicit operator bool() const noexcept { return state_ != nullptr; }

private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace scout::detail
