// file_io.hpp: whole-file reads, crash-safe file replacement and the per-user cache folder:
// every file the library reads or writes goes through here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"

namespace scout::detail {

/// No limit on a read (the caller bounds the size some other way).
inline constexpr std::size_t kNoSizeLimit = std::numeric_limits<std::size_t>::max();

/// Reads a whole regular file. not_found when it does not exist, io_error when it is not a
/// regular file (a directory, a FIFO, a device) or cannot be read, invalid_argument when it holds
/// more than `max_bytes` (checked before reading and again while reading, so a file that grows
/// meanwhile costs at most max_bytes + 1 bytes of memory). The file is opened with O_NONBLOCK and
/// judged by fstat before any read, so a FIFO without a writer is refused, never waited on.
[[nodiscard]] Result<std::string> read_text_file(const std::filesystem::path& path,
                                                 std::size_t max_bytes = kNoSizeLimit);
[[nodiscard]] Result<std::vector<std::uint8_t>> read_binary_file(
    const std::filesystem::path& path, std::size_t max_bytes = kNoSizeLimit);

/// ok when `path` is a regular file that can be opened for reading; the errors of
/// read_text_file otherwise. For files another library reads (libcurl's CA bundle).
[[nodiscard]] Status check_readable_file(const std::filesystem::path& path);

/// A regular file mapped read-only (mmap): its pages are read on first touch, never copied
/// into a buffer first. Errors as read_binary_file. The mapping assumes the file is not
/// truncated or rewritten while mapped (docs/FORMAT.md): index files are replaced by rename.
/// To hold scout's own writers to that, the file stays open with a shared advisory lock
/// (flock LOCK_SH) for as long as the mapping lives; lock_for_writing_in_place refuses it.
class MappedFile {
public:
    [[nodiscard]] static Result<MappedFile> open(const std::filesystem::path& path);
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();
    [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return {data_, size_}; }

private:
    MappedFile(const std::uint8_t* data, std::size_t size, int fd) noexcept
        : data_(data), size_(size), fd_(fd) {}
    void release() noexcept;
    const std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    int fd_ = -1;  ///< holds the shared lock
};

/// An exclusive advisory lock on a file (flock LOCK_EX), released when the lock is destroyed.
/// Empty when there was nothing to lock.
class FileLock {
public:
    FileLock() = default;
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

private:
    explicit FileLock(int fd) noexcept : fd_(fd) {}
    friend Result<FileLock> lock_for_writing_in_place(const std::filesystem::path& path);
    int fd_ = -1;
};

/// For a writer that changes an existing file in place (truncates or appends to it) instead of
/// replacing it by rename: takes LOCK_EX|LOCK_NB on `path` and fails with invalid_argument when
/// the file is locked, as an index file is while a reader has it mapped (MappedFile). Hold the
/// returned lock while writing. A path that does not exist or is not a regular file (a terminal,
/// a pipe) is not locked, and not refused.
[[nodiscard]] Result<FileLock> lock_for_writing_in_place(const std::filesystem::path& path);

/// invalid_argument when `path` exists and is not a regular file (a device, a FIFO, a
/// directory, or a link to one): such a target is never replaced by a file.
[[nodiscard]] Status check_replaceable(const std::filesystem::path& path);

/// The file a write to `path` replaces: `path` itself, or, when `path` is a symbolic link, the
/// file its chain of links ends at (which need not exist yet). invalid_argument past 40 links.
[[nodiscard]] Result<std::filesystem::path> write_target(const std::filesystem::path& path);

/// Replaces `path` with `bytes` so that a crash at any point leaves the complete old file or the
/// complete new one: a uniquely named temporary file in the same folder, fsync, rename over
/// `path`, fsync of the folder. Temporary files that an earlier writer, since dead, left behind
/// next to `path` are removed first. Refuses (check_replaceable) a `path` that exists and is not
/// a regular file. A symbolic link is never replaced: the file it points to is (write_target),
/// with its temporary file in that file's folder. io_error (naming the failing step) on failure.
[[nodiscard]] Status write_file_atomically(const std::filesystem::path& path,
                                           std::string_view bytes);

/// The per-user cache folder: $SCOUT_CACHE_DIR, else $XDG_CACHE_HOME/scout, else
/// $HOME/.cache/scout (where scripts/fetch.d/ puts downloaded models and tokenizer files).
[[nodiscard]] std::filesystem::path cache_dir();

}  // namespace scout::detail
