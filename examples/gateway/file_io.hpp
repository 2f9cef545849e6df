// file_io.hpp: the gateway's own files: its config, auth and TLS files read whole and bounded,
// and the doctor report replaced so that a crash never leaves half of it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "scout/status.hpp"

namespace scout::gateway::detail {

/// Reads a whole regular file. not_found when it does not exist, io_error when it is not a
/// regular file (a directory, a FIFO, a device) or cannot be read, invalid_argument when it holds
/// more than `max_bytes`. The file is opened with O_NONBLOCK and judged by fstat before any read,
/// so a FIFO without a writer is refused, never waited on.
[[nodiscard]] Result<std::string> read_text_file(const std::filesystem::path& path,
                                                 std::size_t max_bytes);

/// Replaces `path` with `bytes` so that a crash at any point leaves the complete old file or the
/// complete new one: a uniquely named temporary file next to it, fsync, rename over `path`,
/// fsync of the folder. A symbolic link is kept: the file it resolves to is replaced. Refuses a
/// `path` that exists and is not a regular file. io_error (naming the failing step) on failure.
[[nodiscard]] Status write_file_atomically(const std::filesystem::path& path,
                                           std::string_view bytes);

}  // namespace scout::gateway::detail
