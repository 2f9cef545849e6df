// tool_names.cpp: the enhanced and plain-name lookups of a snapshot's tools.
#include "snapshot/tool_names.hpp"

#include <cstdint>
#include <memory>
#include <string_view>

namespace scout::detail {

namespace {

/// Whether a record's view shows `text`. Records view the catalog's strings themselves, so
/// where they point usually decides without reading the bytes.
bool views_text(std::string_view view, std::string_view text) {
    return (view.data() == text.data() && view.size() == text.size()) || view == text;
}

}  // namespace

CatalogToolNames catalog_tool_names(const StagedCatalog& staged) {
    CatalogToolNames out;
    std::size_t tools = 0;
    for (const auto& [server_name, server] : staged) {
        tools += server->tools.size();
    }
    out.keys.reserve(tools);
    out.active.reserve(tools);
    for (const auto& [server_name, server] : staged) {
        const bool active = server->meta.status == ServerStatus::active;
        for (const auto& [tool_name, tool] : server->tools) {
            out.keys.push_back({server->meta.name, tool->name});
            out.active.push_back(active);
        }
    }
    return out;
}

CatalogToolNames catalog_tool_names(const CatalogView& catalog) {
    CatalogToolNames out;
    out.keys.reserve(catalog.tools.size());
    out.active.reserve(catalog.tools.size());
    for (const ServerView& server : catalog.servers) {
        const bool active = server.status == ServerStatus::active;
        for (std::uint32_t t = server.first_tool; t < server.end_tool; ++t) {
            out.keys.push_back({server.name, catalog.tools[t].name});
            out.active.push_back(active);
        }
    }
    return out;
}

void index_names(Snapshot& snap, const CatalogToolNames& tools) {
    auto names = std::make_shared<ToolNames>();
    names->tools.reserve(tools.keys.size());
    ToolId next = 0;
    for (std::size_t i = 0; i < tools.keys.size(); ++i) {
        // An ACTIVE tool without a record (a document that failed to render) is not indexed.
        const bool indexed = tools.active[i] && next < snap.tools.size() &&
                             views_text(snap.tools[next].server, tools.keys[i].server) &&
                             views_text(snap.tools[next].tool, tools.keys[i].tool);
        names->tools.push_back(indexed ? next++ : kNotIndexed);
    }
    names->enhanced = EnhancedNames(tools.keys);
    for (std::size_t i = 0; i < names->tools.size(); ++i) {
        if (names->tools[i] != kNotIndexed) {
            snap.tools[names->tools[i]].enhanced_name = names->enhanced.name(i);  // names is kept
        }
    }
    std::vector<std::string_view> plain(snap.tools.size());
    for (std::size_t i = 0; i < snap.tools.size(); ++i) {
        plain[i] = snap.tools[i].tool;
    }
    names->by_plain = ToolsByName(plain);
    snap.names = std::move(names);
}

}  // namespace scout::detail
