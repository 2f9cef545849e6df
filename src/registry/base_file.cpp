// base_file.cpp: names, digests and durable writes of base index files.
#include "registry/base_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include <openssl/evp.h>

#include "registry/row_codec.hpp"

namespace scout::detail {

namespace {

constexpr std::string_view kPrefix = "base-";
constexpr std::string_view kExtension = ".scout";
constexpr std::size_t kDigestChars = 16;

Status io_failure(const std::string& step, const std::filesystem::path& path) {
    return {Errc::io_error, step + " " + path.string() + ": " + std::strerror(errno)};
}

struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&&) = delete;
    Fd& operator=(Fd&&) = delete;
    ~Fd() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

Status fsync_directory(const std::filesystem::path& dir) {
    Fd d{::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (d.fd < 0) {
        return io_failure("open directory", dir);
    }
    if (::fsync(d.fd) != 0) {
        return io_failure("fsync directory", dir);
    }
    return {};
}

}  // namespace

std::string base_file_name(std::uint64_t generation, std::string_view digest_hex) {
    return std::string(kPrefix) + std::to_string(generation) + "-" +
           std::string(digest_hex.substr(0, kDigestChars)) + std::string(kExtension);
}

std::string manifest_name(std::string_view base_file_name) {
    std::string name(base_file_name);
    if (name.ends_with(kExtension)) {
        name.resize(name.size() - kExtension.size());
    }
    return name + ".json";
}

bool is_base_file_name(std::string_view name) {
    if (!name.starts_with(kPrefix) || !name.ends_with(kExtension)) {
        return false;
    }
    const std::string_view middle =
        name.substr(kPrefix.size(), name.size() - kPrefix.size() - kExtension.size());
    const auto dash = middle.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash > 20 ||
        middle.size() - dash - 1 != kDigestChars) {
        return false;
    }
    for (std::size_t i = 0; i < middle.size(); ++i) {
        const char c = middle[i];
        const bool digit = c >= '0' && c <= '9';
        const bool hex = digit || (c >= 'a' && c <= 'f');
        if (i < dash ? !digit : (i > dash && !hex)) {
            return false;
        }
    }
    return true;
}

std::optional<std::uint64_t> base_file_generation(std::string_view name) {
    if (!is_base_file_name(name)) {
        return std::nullopt;
    }
    // Digits only, at most 20 of them (is_base_file_name): parsed with an overflow check.
    std::uint64_t generation = 0;
    for (std::size_t i = kPrefix.size(); name[i] != '-'; ++i) {
        const auto digit = static_cast<std::uint64_t>(name[i] - '0');
        if (generation > (UINT64_MAX - digit) / 10) {
            return std::nullopt;
        }
        generation = generation * 10 + digit;
    }
    return generation;
}

Result<std::string> file_sha256_hex(const std::filesystem::path& path) {
    Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (in.fd < 0) {
        if (errno == ENOENT) {
            return Status{Errc::not_found, "base file " + path.string() + " does not exist"};
        }
        return io_failure("open", path);
    }
    const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                      &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
        return Status{Errc::internal, "SHA-256 is not available"};
    }
    std::array<unsigned char, 1 << 16> block{};
    for (;;) {
        const ssize_t n = ::read(in.fd, block.data(), block.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_failure("read", path);
        }
        if (n == 0) {
            break;
        }
        if (EVP_DigestUpdate(ctx.get(), block.data(), static_cast<std::size_t>(n)) != 1) {
            return Status{Errc::internal, "SHA-256 failed"};
        }
    }
    std::string digest(32, '\0');
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(digest.data()), &size) !=
            1 ||
        size != digest.size()) {
        return Status{Errc::internal, "SHA-256 failed"};
    }
    return to_hex(digest);
}

Status write_durably(const std::filesystem::path& path, std::string_view bytes) {
    std::string temp_name = ".";
    temp_name += path.filename().string();
    temp_name += ".";
    temp_name += std::to_string(::getpid());
    temp_name += ".tmp";
    const std::filesystem::path temp = path.parent_path() / temp_name;
    {
        Fd out{::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
        if (out.fd < 0) {
            return io_failure("create", temp);
        }
        for (std::size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::write(out.fd, bytes.data() + done, bytes.size() - done);
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                Status s = io_failure("write", temp);
                ::unlink(temp.c_str());
                return s;
            }
            done += static_cast<std::size_t>(n);
        }
        if (::fsync(out.fd) != 0) {
            Status s = io_failure("fsync", temp);
            ::unlink(temp.c_str());
            return s;
        }
    }
    if (Status s = rename_durably(temp, path); !s.ok()) {
        ::unlink(temp.c_str());
        return s;
    }
    return {};
}

Status rename_durably(const std::filesystem::path& from, const std::filesystem::path& to) {
    if (::rename(from.c_str(), to.c_str()) != 0) {
        return io_failure("rename " + from.string() + " to", to);
    }
    return fsync_directory(to.parent_path());
}

}  // namespace scout::detail
