// file_io.cpp: see file_io.hpp. POSIX calls, because the atomic replace needs fsync on both the
// file and its folder, which the C++ library does not offer.
#include "util/file_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace scout::detail {
namespace {

Status io_error(std::string_view what, const std::filesystem::path& path) {
    const int err = errno;
    // Appended piece by piece: GCC 12 reports a bogus -Wrestrict for chained operator+ here.
    std::string message(what);
    message.append(" '").append(path.string()).append("': ").append(std::strerror(err));
    return {Errc::io_error, std::move(message)};
}

/// Opens `path` for reading without ever waiting on it: O_NONBLOCK, so that opening a FIFO
/// with no writer returns at once, then fstat on what was opened (no window between a check
/// and the open), and anything but a regular file is refused before a byte is read.
/// Reads of a regular file never block, so the flag stays set.
Result<int> open_regular_file(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            return Status{Errc::not_found, path.string() + ": no such file"};
        }
        return io_error("cannot open", path);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        Status s = io_error("cannot read", path);
        ::close(fd);
        return s;
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return Status{Errc::io_error, path.string() + ": not a regular file"};
    }
    return fd;
}

Status too_big(const std::filesystem::path& path, std::size_t max_bytes) {
    return {Errc::invalid_argument,
            path.string() + ": larger than the limit of " + std::to_string(max_bytes) + " bytes"};
}

template <typename Bytes>
Result<Bytes> read_whole(const std::filesystem::path& path, std::size_t max_bytes) {
    auto opened = open_regular_file(path);
    if (!opened) {
        return opened.status();
    }
    const int fd = opened.value();
    struct stat st {};
    const bool sized = ::fstat(fd, &st) == 0;
    if (sized && static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
        ::close(fd);
        return too_big(path, max_bytes);
    }
    // Read in large blocks (a file may still grow or shrink while it is read, so the size is
    // only a first guess, and the limit is checked again on what was read).
    Bytes bytes;
    std::size_t block = sized ? static_cast<std::size_t>(st.st_size) + 1 : std::size_t{1} << 16U;
    std::size_t used = 0;
    Status failed;
    while (used <= max_bytes) {
        if (max_bytes - used < block) {
            block = max_bytes - used + 1;  // one byte past the limit tells "too big" apart
        }
        bytes.resize(used + block);
        const ssize_t n = ::read(fd, bytes.data() + used, block);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            failed = io_error("cannot read", path);
            break;
        }
        if (n == 0) {
            break;
        }
        used += static_cast<std::size_t>(n);
        block = std::max<std::size_t>(block, std::size_t{1} << 16U);
    }
    ::close(fd);
    if (!failed.ok()) {
        return failed;
    }
    if (used > max_bytes) {
        return too_big(path, max_bytes);
    }
    bytes.resize(used);
    return bytes;
}

Status write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error("cannot write", path);
        }
        done += static_cast<std::size_t>(n);
    }
    return {};
}

Status fsync_directory(const std::filesystem::path& dir) {
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return io_error("cannot open directory", dir);
    }
    const int rc = ::fsync(fd);
    ::close(fd);
    return rc == 0 ? Status{} : io_error("cannot fsync directory", dir);
}

constexpr std::string_view kTempInfix = ".tmp-";

/// Removes `<name>.tmp-<pid>-<n>` files next to `path` whose writer process no longer exists.
void remove_dead_writers_files(const std::filesystem::path& path) {
    const std::string prefix = path.filename().string() + std::string(kTempInfix);
    std::error_code ec;
    const std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
            continue;
        }
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
        const bool dead = pid > 0 && end != nullptr && *end == '-' &&
                          ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
        if (dead) {
            std::filesystem::remove(entry.path(), ec);
        }
    }
}

}  // namespace

Result<std::string> read_text_file(const std::filesystem::path& path, std::size_t max_bytes) {
    return read_whole<std::string>(path, max_bytes);
}

Result<std::vector<std::uint8_t>> read_binary_file(const std::filesystem::path& path,
                                                   std::size_t max_bytes) {
    return read_whole<std::vector<std::uint8_t>>(path, max_bytes);
}

Result<MappedFile> MappedFile::open(const std::filesystem::path& path) {
    auto opened = open_regular_file(path);
    if (!opened) {
        return opened.status();
    }
    const int fd = opened.value();
    // A shared lock for as long as the mapping lives: scout's writers that would change a file
    // in place take LOCK_EX first and refuse (lock_for_writing_in_place). A file system without
    // flock (ENOLCK, EOPNOTSUPP) is mapped unlocked, as before.
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::close(fd);
        return Status{Errc::io_error,
                      path.string() + ": being written in place by another process; try again"};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        Status s = io_error("cannot read", path);
        ::close(fd);
        return s;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size == 0) {
        return MappedFile(nullptr, 0, fd);  // nothing to map; an empty span
    }
    void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
        Status s = io_error("cannot map", path);
        ::close(fd);
        return s;
    }
    return MappedFile(static_cast<const std::uint8_t*>(data), size, fd);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      fd_(std::exchange(other.fd_, -1)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

MappedFile::~MappedFile() {
    release();
}

void MappedFile::release() noexcept {
    if (data_ != nullptr) {
        ::munmap(const_cast<std::uint8_t*>(data_), size_);
        data_ = nullptr;
    }
    if (fd_ >= 0) {
        ::close(fd_);  // drops the shared lock
        fd_ = -1;
    }
}

Status check_readable_file(const std::filesystem::path& path) {
    auto opened = open_regular_file(path);
    if (!opened) {
        return opened.status();
    }
    ::close(opened.value());
    return {};
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

FileLock::~FileLock() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

Result<FileLock> lock_for_writing_in_place(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        return FileLock{};  // nothing there yet (or unreadable: the write reports it)
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return FileLock{};  // a terminal, a pipe: never an index file
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::close(fd);
        return Status{Errc::invalid_argument,
                      path.string() +
                          ": open as an index by a reader (it holds a lock on the file); refusing "
                          "to write it in place"};
    }
    return FileLock(fd);
}

Status check_replaceable(const std::filesystem::path& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);  // a link is judged by its target
    if (!std::filesystem::exists(status)) {
        return {};
    }
    if (!std::filesystem::is_regular_file(status)) {
        return {Errc::invalid_argument,
                path.string() + ": exists and is not a regular file; refusing to replace it"};
    }
    return {};
}

Result<std::filesystem::path> write_target(const std::filesystem::path& path) {
    constexpr int kMaxLinks = 40;  // Linux's own limit on links followed in one lookup
    std::filesystem::path target = path;
    for (int links = 0;; ++links) {
        std::error_code ec;
        if (!std::filesystem::is_symlink(std::filesystem::symlink_status(target, ec))) {
            return target;
        }
        if (links == kMaxLinks) {
            return Status{Errc::invalid_argument,
                          path.string() + ": too many levels of symbolic links"};
        }
        const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
        if (ec) {
            return Status{Errc::io_error,
                          "cannot read the link '" + target.string() + "': " + ec.message()};
        }
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
}

Status write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
    if (Status s = check_replaceable(path); !s.ok()) {
        return s;
    }
    auto target = write_target(path);
    if (!target) {
        return target.status();
    }
    const std::filesystem::path& dest = target.value();
    if (Status s = check_replaceable(dest); !s.ok()) {
        return s;
    }
    remove_dead_writers_files(dest);
    static std::atomic<std::uint64_t> counter{0};
    std::filesystem::path tmp = dest;
    tmp += std::string(kTempInfix) + std::to_string(::getpid()) + "-" +
           std::to_string(counter.fetch_add(1));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        return io_error("cannot create", tmp);
    }
    Status s = write_all(fd, bytes, tmp);
    if (s.ok() && ::fsync(fd) != 0) {
        s = io_error("cannot fsync", tmp);
    }
    if (::close(fd) != 0 && s.ok()) {
        s = io_error("cannot close", tmp);
    }
    if (s.ok() && ::rename(tmp.c_str(), dest.c_str()) != 0) {
        s = io_error("cannot rename into", dest);
    }
    if (!s.ok()) {
        ::unlink(tmp.c_str());
        return s;
    }
    return fsync_directory(dest.parent_path());
}

std::filesystem::path cache_dir() {
    const auto env = [](const char* name) -> const char* {
        const char* value = std::getenv(name);
        return value != nullptr && *value != '\0' ? value : nullptr;
    };
    if (const char* dir = env("SCOUT_CACHE_DIR")) {
        return dir;
    }
    if (const char* xdg = env("XDG_CACHE_HOME")) {
        return std::filesystem::path(xdg) / "scout";
    }
    const char* home = env("HOME");
    return std::filesystem::path(home != nullptr ? home : ".") / ".cache" / "scout";
}

}  // namespace scout::detail
