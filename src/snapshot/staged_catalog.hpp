// staged_catalog.hpp: the writer's desired state: every server (any status) with its tools,
// ordered by name. The Catalog edits one under its write lock; each snapshot keeps a copy of the
// one it was built from, so the published state can be saved exactly. Servers and tools are
// immutable and shared between those copies (an edit replaces the server it changes), so copying
// a catalog copies one pointer per server.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "scout/types.hpp"

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
using StagedCatalog = std::map<std::string, std::shared_ptr<const StagedServer>, std::less<>>;

}  // namespace scout::detail
