// catalog_view.hpp: a catalog whose texts view bytes that something else owns (an index file's
// mapping), so a large catalog opens without copying a string, and becomes ServerSpecs only when
// someone edits it.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "scout/types.hpp"

namespace scout::detail {

struct ToolView {
    std::string_view name;
    std::string_view title;
    std::string_view description;
    std::string_view input_schema;
    std::string_view annotations;
};

struct ServerView {
    std::string_view name;
    std::string_view description;
    std::string_view category;
    std::string_view environment;
    ServerStatus status = ServerStatus::active;
    std::uint32_t first_tool = 0;  ///< its tools are CatalogView::tools[first_tool, end_tool)
    std::uint32_t end_tool = 0;
};

/// Every server (any status) in name order, each one's tools in name order: the order of the
/// ToolIds of the ACTIVE ones.
struct CatalogView {
    std::vector<ServerView> servers;
    std::vector<ToolView> tools;
    std::shared_ptr<const void> owner;  ///< keeps what the views point into alive
    [[nodiscard]] std::size_t indexed_tools() const noexcept;
};

/// A view of `spec`, which it keeps alive.
[[nodiscard]] CatalogView view_of(std::shared_ptr<const CatalogSpec> spec);

/// Copies of the viewed texts.
[[nodiscard]] ServerSpec server_spec(const CatalogView& catalog, const ServerView& server);
[[nodiscard]] CatalogSpec catalog_spec(const CatalogView& catalog);

}  // namespace scout::detail
