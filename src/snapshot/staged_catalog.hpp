// staged_catalog.hpp: the writer's desired state: every server (any status) with its tools,
// ordered by name. The Catalog edits one under its write lock; each snapshot keeps a copy of the
// one it was built from, so the published state can be saved exactly. Servers and tools are
// immutable and shared between those copies (an edit replaces the server it changes), so copying
// a catalog copies one pointer per server.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "scout/types.hpp"

namespace scout::detail {

struct StagedServer {
    ServerSpec meta;  // meta.tools is unused; tools live in the map
    std::map<std::string, std::shared_ptr<const ToolSpec>, std::less<>> tools;
};
using StagedCatalog = std::map<std::string, std::shared_ptr<const StagedServer>, std::less<>>;

}  // namespace scout::detail
