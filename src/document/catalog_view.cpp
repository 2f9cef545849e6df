// catalog_view.cpp: see catalog_view.hpp.
#include "document/catalog_view.hpp"

#include <string>

namespace scout::detail {

std::size_t CatalogView::indexed_tools() const noexcept {
    std::size_t n = 0;
    for (const ServerView& s : servers) {
        n += s.status == ServerStatus::active ? s.end_tool - s.first_tool : 0U;
    }
    return n;
}

CatalogView view_of(std::shared_ptr<const CatalogSpec> spec) {
    CatalogView view;
    view.servers.reserve(spec->servers.size());
    for (const ServerSpec& s : spec->servers) {
        const auto first = static_cast<std::uint32_t>(view.tools.size());
        for (const ToolSpec& t : s.tools) {
            view.tools.push_back({t.name, t.title, t.description, t.input_schema, t.annotations});
        }
        view.servers.push_back({s.name,
                                s.description,
                                s.category,
                                s.environment,
                                s.status,
                                first,
                                static_cast<std::uint32_t>(view.tools.size())});
    }
    view.owner = std::move(spec);
    return view;
}

ServerSpec server_spec(const CatalogView& catalog, const ServerView& server) {
    ServerSpec spec{std::string(server.name),
                    std::string(server.description),
                    std::string(server.category),
                    std::string(server.environment),
                    server.status,
                    {}};
    spec.tools.reserve(server.end_tool - server.first_tool);
    for (std::uint32_t t = server.first_tool; t < server.end_tool; ++t) {
        const ToolView& tool = catalog.tools[t];
        spec.tools.push_back({std::string(tool.name),
                              std::string(tool.title),
                              std::string(tool.description),
                              std::string(tool.input_schema),
                              std::string(tool.annotations)});
    }
    return spec;
}

CatalogSpec catalog_spec(const CatalogView& catalog) {
    CatalogSpec spec;
    spec.servers.reserve(catalog.servers.size());
    for (const ServerView& server : catalog.servers) {
        spec.servers.push_back(server_spec(catalog, server));
    }
    return spec;
}

}  // namespace scout::detail
