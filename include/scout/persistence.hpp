// persistence.hpp: the index file (Catalog::save / Catalog::open write and read it) and a way to
// check one without building a catalog. The byte-level format is in docs/FORMAT.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "scout/status.hpp"

namespace scout {

/// Format version written by this library; independent of the library version. A reader accepts
/// majors kOldestIndexFormatMajor..kIndexFormatMajor (any minor) and skips unknown sections.
inline constexpr std::uint16_t kIndexFormatMajor = 1;
inline constexpr std::uint16_t kIndexFormatMinor = 0;
inline constexpr std::uint16_t kOldestIndexFormatMajor = 1;

/// What an index file holds, from its META section (after full verification).
struct IndexFileInfo {
    std::uint16_t format_major = 0;
    std::uint16_t format_minor = 0;
    std::string library_version;  ///< the library that wrote the file
    std::uint64_t generation = 0;
    std::string model_id;         ///< embedder of the stored vectors; empty when there are none
    std::size_t dim = 0;
    std::size_t servers = 0;      ///< every server, any status
    std::size_t tools = 0;        ///< every tool of every server
    std::size_t indexed_tools = 0;  ///< tools of ACTIVE servers
    std::size_t vectors = 0;
    std::uint64_t file_bytes = 0;
};

/// Verifies a whole index image (checksums, bounds, invariants) and describes it. Never crashes
/// on arbitrary bytes: corrupt or version_unsupported instead. Thread-safe.
[[nodiscard]] Result<IndexFileInfo> inspect_index(std::span<const std::uint8_t> bytes);
/// Same for a file (not_found / io_error when it cannot be read).
[[nodiscard]] Result<IndexFileInfo> inspect_index_file(const std::filesystem::path& path);

}  // namespace scout
