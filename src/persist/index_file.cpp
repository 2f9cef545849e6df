// index_file.cpp: Catalog::save / Catalog::open and index inspection. Saving writes a temporary
// file next to the target, fsyncs it, renames it over the target and fsyncs the directory, so a
// crash at any point leaves a complete old or new file. Opening verifies everything first,
// then restores the catalog and seeds the embedding cache from the stored vectors.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "catalog/catalog_impl.hpp"
#include "persist/index_codec.hpp"
#include "scout/persistence.hpp"

namespace scout {
namespace {

Status io_error(std::string_view what, const std::filesystem::path& path) {
    const int err = errno;
    // Appended piece by piece: GCC 12 reports a bogus -Wrestrict for chained operator+ here.
    std::string message(what);
    message.append(" '").append(path.string()).append("': ").append(std::strerror(err));
    return {Errc::io_error, std::move(message)};
}

Status write_all(int fd, const std::string& bytes, const std::filesystem::path& path) {
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

Status write_atomically(const std::filesystem::path& path, const std::string& bytes) {
    static std::atomic<std::uint64_t> counter{0};
    std::filesystem::path tmp = path;
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
    if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
        s = io_error("cannot rename into", path);
    }
    if (!s.ok()) {
        ::unlink(tmp.c_str());
        return s;
    }
    return fsync_directory(path.parent_path());
}

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        const bool exists = std::filesystem::exists(path, ec);
        std::string message = path.string();
        message += exists ? ": not a regular file" : ": no such index file";
        return Status{exists ? Errc::io_error : Errc::not_found, std::move(message)};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return io_error("cannot open", path);
    }
    std::vector<std::uint8_t> bytes;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) {
        bytes.reserve(static_cast<std::size_t>(size));
    }
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) {
        return io_error("cannot read", path);
    }
    return bytes;
}

Status with_path(const Status& s, const std::filesystem::path& path) {
    return {s.code(), path.string() + ": " + s.message()};
}

}  // namespace

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
    auto bytes = read_file(path);
    if (!bytes) {
        return bytes.status();
    }
    auto info = inspect_index(bytes.value());
    return info ? info : Result<IndexFileInfo>(with_path(info.status(), path));
}

Status Catalog::save(const std::filesystem::path& path) const {
    try {
        const std::shared_ptr<const detail::Snapshot> snap = impl_->slot.load();
        return write_atomically(path, detail::encode_index(*snap));
    } catch (const std::bad_alloc&) {
        return {Errc::internal, "out of memory while saving the index"};
    } catch (const std::exception& e) {
        return {Errc::internal, std::string("saving the index failed: ") + e.what()};
    }
}

Result<Catalog> Catalog::open(const std::filesystem::path& path, std::shared_ptr<Embedder> embedder) {
    try {
        auto bytes = read_file(path);
        if (!bytes) {
            return bytes.status();
        }
        auto stored = detail::decode_index(bytes.value());
        bytes.value().clear();
        bytes.value().shrink_to_fit();
        if (!stored) {
            return with_path(stored.status(), path);
        }
        const IndexFileInfo& info = stored->info;
        auto created = Catalog::create(stored->options, embedder);
        if (!created) {
            return with_path(created.status(), path);
        }
        Catalog catalog = std::move(created.value());
        Impl& impl = *catalog.impl_;
        std::lock_guard lock(impl.write_mu);
        // Render the indexed documents (ToolId order: the order of the VECS rows) into the
        // document cache, which the commit below reuses.
        std::vector<detail::CachedDocument*> docs;
        const Analyzer analyzer(stored->options.analyzer);
        for (ServerSpec& server : stored->catalog.servers) {
            detail::StagedServer staged = Impl::stage(std::move(server));
            if (staged.meta.status == ServerStatus::active) {
                for (const auto& [name, tool] : staged.tools) {
                    std::size_t rendered = 0;
                    detail::CachedDocument* doc =
                        impl.documents.get(detail::DocumentCache::key(staged.meta, tool), staged.meta, tool, analyzer,
                                           stored->options.bm25.weights, rendered);
                    if (doc == nullptr) {
                        return Status{Errc::corrupt, path.string() + ": index file is corrupt: a tool does not render"};
                    }
                    docs.push_back(doc);
                }
            }
            std::string name = staged.meta.name;
            impl.staged[std::move(name)] = std::move(staged);
        }
        if (embedder && !info.model_id.empty()) {
            // A corpus-aware embedder names its fitted state in model_id(): fit it to this
            // catalog (as commit() would) before comparing with the model the file was built with.
            std::vector<std::string> corpus;
            corpus.reserve(docs.size());
            for (const detail::CachedDocument* doc : docs) {
                corpus.push_back(doc->text);
            }
            embedder->fit(corpus);
            const std::string model = embedder->model_id();
            const std::size_t dim = embedder->dim();
            if (model != info.model_id || dim != info.dim) {
                return Status{Errc::embedder_mismatch,
                              path.string() + ": the index was built with embedder '" + info.model_id + "' (dim " +
                                  std::to_string(info.dim) + "), not '" + model + "' (dim " + std::to_string(dim) +
                                  "); re-index the catalog with this embedder"};
            }
            if (docs.size() != info.vectors) {
                return Status{Errc::corrupt, path.string() + ": index file is corrupt: vectors do not match tools"};
            }
            for (std::size_t row = 0; row < docs.size(); ++row) {
                const float* first = stored->vectors.data() + row * info.dim;
                impl.cache.put(detail::EmbeddingCache::key(info.model_id, docs[row]->text),
                               std::vector<float>(first, first + info.dim));
            }
        }
        impl.generation = info.generation == 0 ? 0 : info.generation - 1;
        auto committed = impl.commit_locked();
        if (!committed) {
            return with_path(committed.status(), path);
        }
        return catalog;
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory while opening the index"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("opening the index failed: ") + e.what()};
    }
}

}  // namespace scout
