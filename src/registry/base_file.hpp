// base_file.hpp: the files of a published base: its name (generation and digest), the SHA-256
// of its bytes, and the durable steps of writing it (fsync, rename, fsync of the directory).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "scout/status.hpp"

namespace scout::detail {

/// base-<generation>-<first 16 hex digits of the digest>.scout
[[nodiscard]] std::string base_file_name(std::uint64_t generation, std::string_view digest_hex);
/// The manifest beside a base file: the same name ending in .json.
[[nodiscard]] std::string manifest_name(std::string_view base_file_name);
/// True for a name base_file_name() makes: a name read from the registry never leaves the
/// directory (no separators, no dots but the extension's).
[[nodiscard]] bool is_base_file_name(std::string_view name);
/// The generation a base file's name carries; nullopt for any other name.
[[nodiscard]] std::optional<std::uint64_t> base_file_generation(std::string_view name);

/// SHA-256 of a file's bytes, lowercase hexadecimal, read in blocks. not_found / io_error.
[[nodiscard]] Result<std::string> file_sha256_hex(const std::filesystem::path& path);

/// Writes `bytes` to a new temporary file in `path`'s directory, fsyncs it and renames it over
/// `path`, then fsyncs the directory. io_error naming the step on failure.
[[nodiscard]] Status write_durably(const std::filesystem::path& path, std::string_view bytes);
/// Renames `from` to `to` (same directory) and fsyncs the directory.
[[nodiscard]] Status rename_durably(const std::filesystem::path& from,
                                    const std::filesystem::path& to);

}  // namespace scout::detail
