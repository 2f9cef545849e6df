// index_codec.hpp: a saved catalog <-> the sections of an index file (META, CATL, VECS).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "scout/options.hpp"
#include "scout/persistence.hpp"
#include "scout/types.hpp"
#include "snapshot/snapshot.hpp"

namespace scout::detail {

/// Everything needed to rebuild a snapshot without re-embedding.
struct StoredIndex {
    IndexFileInfo info;
    CatalogOptions options;
    CatalogSpec catalog;         ///< every server with its status and tools, by name
    std::vector<float> vectors;  ///< info.vectors x info.dim unit rows, ACTIVE tools in ToolId order
};

/// The file image of a published snapshot.
[[nodiscard]] std::string encode_index(const Snapshot& snapshot);

/// Verifies and decodes a file image: container checks, then JSON and vector validation.
[[nodiscard]] Result<StoredIndex> decode_index(std::span<const std::uint8_t> bytes);

}  // namespace scout::detail
