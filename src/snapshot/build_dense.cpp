// build_dense.cpp: the dense phase of a snapshot build: embedding keys, cached or fresh unit
// rows (the embedder's batches on the pool), then the previous dense index shared, patched at
// the changed rows, or built afresh.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <span>
#include <unordered_map>

#include "snapshot/build_context.hpp"
#include "util/hash.hpp"

namespace scout::detail {

namespace {

/// The unit rows of one embedder call on `texts`, or why the call failed.
Result<std::vector<std::vector<float>>> embed_batch(Embedder& embedder,
                                                    std::span<const std::string> texts,
                                                    std::size_t dim) {
    Result<std::vector<float>> out = Status{Errc::internal, "not called"};
    try {
        out = embedder.embed(texts);
    } catch (const std::exception& e) {
        return Status{Errc::unavailable, std::string("embedder threw: ") + e.what()};
    } catch (...) {
        return Status{Errc::unavailable, "embedder threw a non-standard exception"};
    }
    if (!out) {
        return out.status();
    }
    if (out->size() != texts.size() * dim) {
        return Status{Errc::dimension_mismatch,
                      "embedder returned " + std::to_string(out->size()) + " floats for " +
                          std::to_string(texts.size()) + " texts of dimension " +
                          std::to_string(dim)};
    }
    std::vector<std::vector<float>> rows;
    rows.reserve(texts.size());
    for (std::size_t j = 0; j < texts.size(); ++j) {
        std::vector<float> v(out->begin() + static_cast<std::ptrdiff_t>(j * dim),
                             out->begin() + static_cast<std::ptrdiff_t>((j + 1) * dim));
        if (!normalize(v.data(), dim)) {
            // A zero vector (e.g. a text with no known words) is kept as zero: it matches
            // nothing.
            std::fill(v.begin(), v.end(), 0.0f);
            for (float x : *out) {
                if (!std::isfinite(x)) {
                    return Status{Errc::invalid_argument, "embedder returned a non-finite value"};
                }
            }
        }
        rows.push_back(std::move(v));
    }
    return rows;
}

/// The documents one build embeds, and the rows of the previous build it may take instead.
struct RowsToEmbed {
    /// The documents; the texts of only those embedded are read (rendered when not yet).
    const std::vector<CachedDocument*>& docs;
    const std::vector<std::uint64_t>& keys;  ///< the EmbeddingCache key of each document
    std::size_t dim = 0;
    /// May be null: rows of as many documents, under `before_keys`, taken where the key is the
    /// same.
    const VectorStore* before = nullptr;
    std::span<const std::uint64_t> before_keys;
};

/// Embeds the documents the cache does not know, batches on the pool (Embedder::embed is
/// thread-safe); fills `vectors` (unit rows) or returns the error of the first failing batch.
/// The batches before it are cached, as a sequential run would have left them.
Status embed_documents(const BuildContext& ctx,
                       Embedder& embedder,
                       const RowsToEmbed& job,
                       VectorStore& vectors) {
    const std::vector<CachedDocument*>& docs = job.docs;
    const std::vector<std::uint64_t>& keys = job.keys;
    const VectorStore* before = job.before;
    const std::span<const std::uint64_t> before_keys = job.before_keys;
    const std::size_t dim = job.dim;
    EmbeddingCache& cache = ctx.cache;
    // Rows `before` holds at the same position need neither the cache nor the embedder.
    const auto kept = [&](std::size_t i) { return before != nullptr && before_keys[i] == keys[i]; };
    std::vector<std::size_t> missing;
    std::vector<const std::string*> texts;  // of the missing rows, rendered on this thread
    for (std::size_t i = 0; i < docs.size(); ++i) {
        if (!kept(i) && cache.find(keys[i]) == nullptr) {
            missing.push_back(i);
            texts.push_back(&ctx.documents.text_of(*docs[i]));
        }
    }
    const std::size_t batch = std::max<std::size_t>(ctx.options.embed_batch, 1);
    const std::size_t batches = (missing.size() + batch - 1) / batch;
    std::vector<Result<std::vector<std::vector<float>>>> results(
        batches, Status{Errc::internal, "not embedded"});
    std::atomic<bool> failed{false};  // later batches are not worth the embedder's time
    ctx.report("embeddings", 0, missing.size());
    ctx.pool.parallel_for(
        batches,
        1,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t b = begin; b < end && !failed.load(std::memory_order_relaxed); ++b) {
                const std::size_t first = b * batch;
                const std::size_t last = std::min(first + batch, missing.size());
                std::vector<std::string> chunk;
                chunk.reserve(last - first);
                for (std::size_t j = first; j < last; ++j) {
                    chunk.push_back(*texts[j]);
                }
                results[b] = embed_batch(embedder, chunk, dim);
                if (!results[b]) {
                    failed.store(true, std::memory_order_relaxed);
                }
            }
        },
        [&](std::size_t done) {
            if (!failed.load(std::memory_order_relaxed)) {
                ctx.report("embeddings", std::min(done * batch, missing.size()), missing.size());
            }
        });
    for (std::size_t b = 0; b < batches; ++b) {
        if (!results[b]) {
            return results[b].status();
        }
        for (std::size_t j = 0; j < results[b]->size(); ++j) {
            cache.put(keys[missing[b * batch + j]], std::move((*results[b])[j]));
            ++ctx.info.embedded;
        }
    }
    const auto row_of = [&](std::size_t i) { return cache.find(keys[i])->data(); };
    if (before != nullptr) {
        // The previous rows' chunks, shared, except the chunks of the rows that changed.
        std::vector<std::size_t> changed;
        for (std::size_t i = 0; i < docs.size(); ++i) {
            if (!kept(i)) {
                changed.push_back(i);
            }
        }
        vectors = VectorStore::patched(*before, changed, row_of);
    } else {
        PodVector<float> rows(docs.size() * dim);  // not zeroed: every row is written below
        for (std::size_t i = 0; i < docs.size(); ++i) {
            std::memcpy(rows.data() + i * dim, row_of(i), dim * sizeof(float));
        }
        vectors = VectorStore(dim, std::move(rows));
    }
    cache.retain(keys);
    return {};
}

/// The EmbeddingCache keys of every document, reusing the ones computed by earlier commits.
std::vector<std::uint64_t> embed_keys_of(DocumentCache& documents,
                                         const std::vector<CachedDocument*>& docs,
                                         const std::string& model) {
    const std::uint64_t model_hash = embed_model_hash(model);
    std::vector<std::uint64_t> keys;
    keys.reserve(docs.size());
    for (CachedDocument* doc : docs) {
        if (doc->embed_model_hash != model_hash) {
            doc->embed_key = EmbeddingCache::key(model, documents.text_of(*doc));
            doc->embed_model_hash = model_hash;
        }
        keys.push_back(doc->embed_key);
    }
    return keys;
}

/// Puts the vectors `previous` holds for any of `keys` the cache lacks into the cache: after an
/// index file was opened, its snapshot holds the only copy of the document vectors.
void seed_from_previous(const Snapshot* previous,
                        const std::string& model,
                        std::size_t dim,
                        const std::vector<std::uint64_t>& keys,
                        EmbeddingCache& cache) {
    if (previous == nullptr || !previous->dense || previous->embedder_model != model ||
        previous->dense->vectors().dim() != dim ||
        previous->embed_keys.size() != previous->dense->vectors().size()) {
        return;
    }
    std::unordered_map<std::uint64_t, std::size_t> rows;
    const VectorStore& stored = previous->dense->vectors();
    const bool aligned = previous->embed_keys.size() == keys.size();
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::uint64_t key = keys[i];
        // At the same position embed_documents takes the row from `previous` directly.
        if ((aligned && previous->embed_keys[i] == key) || cache.find(key) != nullptr) {
            continue;
        }
        if (rows.empty()) {
            rows.reserve(previous->embed_keys.size());
            for (std::size_t j = 0; j < previous->embed_keys.size(); ++j) {
                rows.emplace(previous->embed_keys[j], j);
            }
        }
        if (auto it = rows.find(key); it != rows.end()) {
            const float* row = stored.row(it->second);
            cache.put(key, std::vector<float>(row, row + dim));
        }
    }
}

/// A build patches the previous build's dense index while at most this fraction of the vectors
/// changed: re-linking one HNSW point costs about as much as inserting tens of them afresh.
constexpr std::size_t kDensePatchOneIn = 32;

/// `previous`'s dense index patched at the rows whose embedding keys changed, when it is over
/// as many vectors of the same model and few of them changed; null otherwise (build afresh).
std::shared_ptr<const DenseIndex> patched_dense(const Snapshot* previous,
                                                const Snapshot& snap,
                                                const std::shared_ptr<VectorStore>& vectors,
                                                const DenseOptions& options) {
    if (previous == nullptr || !previous->dense ||
        previous->embedder_model != snap.embedder_model ||
        previous->dense->vectors().dim() != vectors->dim() ||
        previous->embed_keys.size() != snap.embed_keys.size() ||
        previous->dense->vectors().size() != vectors->size()) {
        return nullptr;
    }
    std::vector<ToolId> changed;
    const std::size_t n = snap.embed_keys.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (previous->embed_keys[i] != snap.embed_keys[i]) {
            if ((changed.size() + 1) * kDensePatchOneIn > n) {
                return nullptr;
            }
            changed.push_back(static_cast<ToolId>(i));
        }
    }
    return previous->dense->patched(vectors, changed, options);
}

}  // namespace

void build_dense(const BuildContext& ctx, Embedder& embedder, const Collected& collected) {
    Snapshot& snap = ctx.snap;
    const Snapshot* previous = ctx.previous;
    const std::vector<CachedDocument*>& docs = collected.docs;
    Status s;
    try {
        if (embedder.reads_corpus()) {
            // Corpus statistics first, so model_id() names the fitted model. A corpus-blind
            // embedder is not called: the texts of documents it does not embed stay unrendered.
            embedder.fit(ctx.documents.corpus(docs, collected.doc_keys));
        }
        snap.embedder_model = embedder.model_id();
        const std::size_t dim = embedder.dim();
        if (dim == 0) {
            snap.dense_error =
                Status{Errc::dimension_mismatch, "embedder reports dimension 0"}.to_string();
            return;
        }
        snap.embed_keys = embed_keys_of(ctx.documents, docs, snap.embedder_model);
        if (previous != nullptr && previous->dense &&
            previous->embedder_model == snap.embedder_model &&
            previous->dense->vectors().dim() == dim && previous->embed_keys == snap.embed_keys) {
            snap.dense = previous->dense;
            ctx.info.dense_reused = true;
            return;
        }
        seed_from_previous(previous, snap.embedder_model, dim, snap.embed_keys, ctx.cache);
        auto vectors = std::make_shared<VectorStore>();
        const bool aligned = previous != nullptr && previous->dense &&
                             previous->embedder_model == snap.embedder_model &&
                             previous->dense->vectors().dim() == dim &&
                             previous->dense->vectors().size() == docs.size() &&
                             previous->embed_keys.size() == docs.size();
        const RowsToEmbed job{
            docs,
            snap.embed_keys,
            dim,
            aligned ? &previous->dense->vectors() : nullptr,
            aligned ? std::span<const std::uint64_t>(previous->embed_keys)
                    : std::span<const std::uint64_t>(),
        };
        s = embed_documents(ctx, embedder, job, *vectors);
        if (s.ok()) {
            const std::size_t rows = docs.size();
            ctx.report("dense", 0, rows);
            snap.dense = patched_dense(previous, snap, vectors, ctx.options.dense);
            if (snap.dense) {
                ctx.info.dense_patched = true;
            } else {
                snap.dense = make_dense_index(
                    std::move(vectors), ctx.options.dense, &ctx.pool, [&](std::size_t done) {
                        ctx.report("dense", done, rows);
                    });
            }
            ctx.report("dense", rows, rows);
            return;
        }
    } catch (const std::exception& e) {
        s = {Errc::unavailable, std::string("embedder failed: ") + e.what()};
    }
    snap.embed_keys.clear();
    snap.dense_error = s.to_string();
}

}  // namespace scout::detail
