// index_inspect.cpp: inspect_index / inspect_index_file: a whole index image verified and
// described without building a catalog (scout index --check, the fuzz target).
#include "scout/catalog.hpp"

#include "persist/index_codec.hpp"
#include "util/file_io.hpp"

namespace scout {

Result<IndexFileInfo> inspect_index(std::span<const std::uint8_t> bytes) {
    try {
        auto stored = detail::decode_index(bytes);
        if (!stored) {
            return stored.status();
        }
        return stored->info;
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory while reading an index"};
    }
}

Result<IndexFileInfo> inspect_index_file(const std::filesystem::path& path) {
    auto file = detail::MappedFile::open(path);
    if (!file) {
        return file.status();
    }
    auto info = inspect_index(file->bytes());
    if (!info) {
        return Status{info.status().code(), path.string() + ": " + info.status().message()};
    }
    return info;
}

}  // namespace scout
