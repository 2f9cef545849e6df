// catalog_binary.hpp: the CATB section (format 2.0), the committed catalog as fixed-size records
// and one blob of texts. Opening views the texts in place, where the file is mapped: nothing is
// parsed or copied, which on a large catalog was most of the time an open took.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "scout/status.hpp"
#include "scout/types.hpp"

#include "document/catalog_view.hpp"

namespace scout::detail {

/// One server as the writer holds it: its fields (server->tools is not read) and its tools, in
/// name order.
struct ServerImage {
    const ServerSpec* server = nullptr;
    std::vector<const ToolSpec*> tools;
};

/// The section's bytes for `servers` (every server, any status, in name order).
[[nodiscard]] std::string encode_catalog_binary(std::span<const ServerImage> servers);

/// The catalog in `bytes`, its texts viewing them (the caller keeps them alive and sets
/// CatalogView::owner). corrupt when the layout is inconsistent, a server or tool is out of
/// order, or a text fails validate_stored_server.
[[nodiscard]] Result<CatalogView> decode_catalog_binary(std::span<const std::uint8_t> bytes);

}  // namespace scout::detail
