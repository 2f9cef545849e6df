// file_io.cpp: see file_io.hpp. POSIX calls: the atomic replacement needs fsync of the file and
// of its folder, which the C++ library does not offer.
#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <utility>

namespace scout::gateway::detail {
namespace {

Status io_error(std::string_view what, const std::filesystem::path& path) {
    const int err = errno;
    std::string message(what);
    message.append(" '").append(path.string()).append("': ").append(std::strerror(err));
    return {Errc::io_error, std::move(message)};
}

Status too_big(const std::filesystem::path& path, std::size_t max_bytes) {
    return {Errc::invalid_argument,
            path.string() + ": larger than the limit of " + std::to_string(max_bytes) + " bytes"};
}

/// Closes a descriptor when it goes out of scope.
struct FdCloser {
    explicit FdCloser(int descriptor) : fd(descriptor) {}
    FdCloser(const FdCloser&) = delete;
    FdCloser& operator=(const FdCloser&) = delete;
    ~FdCloser() { ::close(fd); }
    int fd;
};

Status write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error("cannot write", path);
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

Status fsync_directory(const std::filesystem::path& dir) {
    const std::filesystem::path folder = dir.empty() ? std::filesystem::path(".") : dir;
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return io_error("cannot open folder", folder);
    }
    const FdCloser closer{fd};
    if (::fsync(fd) != 0) {
        return io_error("cannot fsync folder", folder);
    }
    return {};
}

}  // namespace

Result<std::string> read_text_file(const std::filesystem::path& path, std::size_t max_bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            return Status{Errc::not_found, path.string() + ": no such file"};
        }
        return io_error("cannot open", path);
    }
    const FdCloser closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return io_error("cannot read", path);
    }
    if (!S_ISREG(st.st_mode)) {
        return Status{Errc::io_error, path.string() + ": not a regular file"};
    }
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
        return too_big(path, max_bytes);
    }
    // The size is a first guess (the file may change while it is read); the limit is checked
    // again on what was read, one byte past it telling "too big" apart.
    std::string text;
    std::size_t used = 0;
    while (used <= max_bytes) {
        const std::size_t block =
            std::min<std::size_t>(std::size_t{1} << 16U, max_bytes - used + 1);
        text.resize(used + block);
        const ssize_t n = ::read(fd, text.data() + used, block);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error("cannot read", path);
        }
        if (n == 0) {
            break;
        }
        used += static_cast<std::size_t>(n);
    }
    if (used > max_bytes) {
        return too_big(path, max_bytes);
    }
    text.resize(used);
    return text;
}

Status write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
    std::error_code ec;
    std::filesystem::path dest = path;
    if (std::filesystem::is_symlink(path, ec)) {
        dest = std::filesystem::weakly_canonical(path, ec);
        if (ec) {
            return Status{Errc::io_error, path.string() + ": cannot resolve link: " + ec.message()};
        }
    }
    const auto status = std::filesystem::status(dest, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        return Status{Errc::invalid_argument, dest.string() + ": exists and is not a regular file"};
    }
    static std::atomic<std::uint64_t> counter{0};
    std::filesystem::path tmp = dest;
    tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
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

}  // namespace scout::gateway::detail
