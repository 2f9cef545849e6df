// catalog_file.cpp: Catalog::save and Catalog::open. The catalog owns its index file: it hands
// the published snapshot to the codec (persist/) as views, writes the bytes atomically, and on
// open restores its staged state and seeds its caches from what the codec decoded.
#include <mutex>

#include "catalog/catalog_impl.hpp"
#include "persist/index_codec.hpp"
#include "util/file_io.hpp"

namespace scout {
namespace {

Status with_path(const Status& s, const std::filesystem::path& path) {
    return {s.code(), path.string() + ": " + s.message()};
}

/// The published snapshot as the codec's views: the catalog it was built from (`staged`: every
/// server, any status) and, when it has a dense index, its vectors.
detail::IndexImage image_of(const detail::Snapshot& snap,
                            const detail::StagedCatalog* staged,
                            const Embedder* embedder) {
    detail::IndexImage image;
    image.generation = snap.generation;
    image.options = snap.options;
    image.indexed_tools = snap.tools.size();
    if (staged != nullptr) {
        for (const auto& [name, server] : *staged) {
            detail::ServerImage s{&server->meta, {}};
            s.tools.reserve(server->tools.size());
            for (const auto& [tool_name, tool] : server->tools) {
                s.tools.push_back(tool.get());
            }
            image.servers.push_back(std::move(s));
        }
    }
    if (snap.dense) {
        const detail::VectorStore& vectors = snap.dense->vectors();
        image.model_id = snap.embedder_model;
        image.dim = vectors.dim();
        image.vectors = &vectors;
        image.embed_keys = snap.embed_keys;
        image.hnsw_graph = snap.dense->graph_bytes();
        // The fitted statistics belong to the snapshot's model only while the embedder still
        // names it (a later fit() may have moved on).
        if (embedder != nullptr && embedder->model_id() == snap.embedder_model) {
            image.embedder_state = embedder->fitted_state();
        }
    }
    image.bm25 = &snap.bm25;
    return image;
}

}  // namespace

Result<std::vector<detail::CachedDocument*>> Catalog::Impl::restore_staged(
    detail::StoredIndex& stored) {
    std::vector<detail::CachedDocument*> docs;
    const detail::Analyzer analyzer(stored.options.analyzer);
    for (const detail::ServerView& server : stored.catalog.servers) {
        std::shared_ptr<const detail::StagedServer> entry =
            stage(detail::server_spec(stored.catalog, server));
        if (entry->meta.status == ServerStatus::active) {
            for (const auto& [name, tool] : entry->tools) {
                std::size_t rendered = 0;
                detail::CachedDocument* doc =
                    documents.get(detail::DocumentCache::key(entry->meta, *tool),
                                  entry->meta,
                                  *tool,
                                  analyzer,
                                  stored.options.bm25.weights,
                                  rendered);
                if (doc == nullptr) {
                    return Status{Errc::corrupt, "index file is corrupt: a tool does not render"};
                }
                docs.push_back(doc);
            }
        }
        std::string name = entry->meta.name;
        staged[std::move(name)] = std::move(entry);
    }
    return docs;
}

Status Catalog::Impl::seed_vectors(const detail::StoredIndex& stored,
                                   const std::vector<detail::CachedDocument*>& docs) {
    const IndexFileInfo& info = stored.info;
    // A corpus-aware embedder names its fitted state in model_id(): fit it to this catalog (as
    // commit() would) before comparing with the model the file was built with.
    std::vector<std::string> corpus;
    corpus.reserve(docs.size());
    for (const detail::CachedDocument* doc : docs) {
        corpus.push_back(doc->text);
    }
    embedder->fit(corpus);
    const std::string model = embedder->model_id();
    const std::size_t dim = embedder->dim();
    if (model != info.model_id || dim != info.dim) {
        return {Errc::embedder_mismatch,
                "the index was built with embedder '" + info.model_id + "' (dim " +
                    std::to_string(info.dim) + "), not '" + model + "' (dim " +
                    std::to_string(dim) + "); re-index the catalog with this embedder"};
    }
    if (docs.size() != info.vectors) {
        return {Errc::corrupt, "index file is corrupt: vectors do not match tools"};
    }
    for (std::size_t row = 0; row < docs.size(); ++row) {
        const float* first = stored.vectors->row(row);
        cache.put(detail::EmbeddingCache::key(info.model_id, docs[row]->text),
                  std::vector<float>(first, first + info.dim));
    }
    return {};
}

bool Catalog::Impl::open_directly(detail::StoredIndex& stored) {
    const bool has_vectors = !stored.info.model_id.empty();
    if (!stored.bm25 || options.expansion.neighbours != 0 || (embedder && !has_vectors)) {
        return false;  // older file, or word neighbours (built from the documents): rebuild
    }
    std::shared_ptr<const detail::DenseIndex> dense;
    std::vector<std::uint64_t> keys;
    if (embedder && has_vectors) {
        if (!stored.dense || stored.embed_keys.size() != stored.info.vectors ||
            !embedder->restore_fitted_state(stored.embedder_state) ||
            embedder->model_id() != stored.info.model_id || embedder->dim() != stored.info.dim) {
            return false;  // the rebuild fits the embedder and names a mismatch
        }
        dense = std::move(stored.dense);
        keys = std::move(stored.embed_keys);
    }
    std::shared_ptr<detail::Snapshot> snap = detail::assemble_snapshot(
        std::make_shared<const detail::CatalogView>(std::move(stored.catalog)),
        options,
        std::move(*stored.bm25),
        std::move(dense),
        std::move(keys),
        stored.info.model_id,
        stored.info.generation);
    // The snapshot's source is also the writer's state until its first edit (edit_staged).
    unedited = snap->source;
    generation = stored.info.generation;
    seed_pending = true;
    slot.publish(std::move(snap));
    return true;
}

Status Catalog::save(const std::filesystem::path& path) const {
    try {
        const std::shared_ptr<const detail::Snapshot> snap = impl_->slot.load();
        const std::shared_ptr<const detail::StagedCatalog> staged = snap->source.get();
        const std::shared_ptr<const detail::OutcomePrior> outcomes = impl_->load_outcomes();
        detail::IndexImage image = image_of(*snap, staged.get(), impl_->embedder.get());
        image.outcomes = outcomes.get();
        return detail::write_file_atomically(path, detail::encode_index(image));
    } catch (const std::bad_alloc&) {
        return {Errc::internal, "out of memory while saving the index"};
    } catch (const std::exception& e) {
        return {Errc::internal, std::string("saving the index failed: ") + e.what()};
    }
}

Result<Catalog> Catalog::open(const std::filesystem::path& path,
                              std::shared_ptr<Embedder> embedder,
                              std::vector<std::string>* warnings) {
    try {
        auto stored = [&]() -> Result<detail::StoredIndex> {
            // Mapped, not read: the catalog's texts, the vectors and the postings are used where
            // they lie in the file, which the snapshot keeps mapped.
            auto file = detail::MappedFile::open(path);
            if (!file) {
                return file.status();
            }
            auto mapped = std::make_shared<const detail::MappedFile>(std::move(file.value()));
            return detail::decode_index(mapped->bytes(), mapped);
        }();
        if (!stored) {
            return with_path(stored.status(), path);
        }
        if (warnings != nullptr) {
            *warnings = stored->info.warnings;
        }
        auto created = Catalog::create(stored->options, std::move(embedder));
        if (!created) {
            return with_path(created.status(), path);
        }
        Impl& impl = *created->impl_;
        std::lock_guard lock(impl.write_mu);
        if (stored->outcomes) {
            impl.outcomes = std::make_shared<const detail::OutcomePrior>(*stored->outcomes);
        }
        if (impl.open_directly(stored.value())) {
            return std::move(created.value());
        }
        auto docs = impl.restore_staged(stored.value());
        if (!docs) {
            return with_path(docs.status(), path);
        }
        if (impl.embedder && !stored->info.model_id.empty()) {
            if (Status s = impl.seed_vectors(stored.value(), docs.value()); !s.ok()) {
                return with_path(s, path);
            }
        }
        impl.generation = stored->info.generation == 0 ? 0 : stored->info.generation - 1;
        if (auto committed = impl.commit_locked(); !committed) {
            return with_path(committed.status(), path);
        }
        return std::move(created.value());
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory while opening the index"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("opening the index failed: ") + e.what()};
    }
}

}  // namespace scout
