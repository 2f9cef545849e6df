// snapshot_builder.cpp: documents -> BM25 postings, cached or fresh embeddings -> dense index,
// enhanced names and id maps; all assembled off to the side before anyone can see it.
#include "snapshot/snapshot_builder.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <optional>
#include <set>
#include <span>
#include <thread>
#include <unordered_map>

#include "analysis/term.hpp"
#include "analysis/tool_action.hpp"
#include "analysis/word_pairs.hpp"
#include "document/tool_document.hpp"
#include "snapshot/snapshot_layout.hpp"
#include "util/hash.hpp"
#include "util/thread_pool.hpp"

namespace scout::detail {

namespace {

/// The catalog words for neighbour expansion: the unstemmed index terms of every indexed
/// document (the terms with postings, so a commit analyzes nothing again), each with the index
/// terms it stands for. Words under 3 bytes or with digits are left out (their vectors relate
/// them to little of use).
std::shared_ptr<const WordNeighbours> build_neighbours(const Analyzer& index_analyzer,
                                                       const AnalyzerOptions& analyzer_options,
                                                       std::shared_ptr<const WordVectors> vectors,
                                                       const Bm25Index& bm25) {
    std::set<std::string> words;
    const std::vector<std::string_view> terms = bm25.terms();
    const std::span<const std::uint32_t> offsets = bm25.offsets();
    for (std::size_t t = 0; t < terms.size(); ++t) {
        if (offsets[t + 1] > offsets[t] && !terms[t].empty() &&
            term_kind(terms[t]) == TermKind::word) {
            words.emplace(terms[t]);
        }
    }
    // Stems without their surface forms: a term is its own (only) index term.
    const bool stems_only = analyzer_options.stem && !analyzer_options.keep_surface;
    std::vector<CatalogWord> entries;
    for (const std::string& w : words) {
        if (w.size() < 3 ||
            std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            continue;
        }
        entries.push_back(
            {w, stems_only ? std::vector<std::string>{w} : index_analyzer.analyze(w)});
    }
    return WordNeighbours::build(std::move(vectors), std::move(entries));
}

void report(const ProgressCallback& progress,
            std::string_view phase,
            std::size_t done,
            std::size_t total) {
    if (progress) {
        progress(CommitProgress{phase, done, total});
    }
}

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

/// Embeds the documents the cache does not know, batches on the pool (Embedder::embed is
/// thread-safe); fills `vectors` (unit rows) or returns the error of the first failing batch.
/// The batches before it are cached, as a sequential run would have left them. `before` (may
/// be null): rows of as many documents, under `before_keys`, taken where the key is the same.
Status embed_documents(const std::vector<const std::string*>& texts,
                       const std::vector<std::uint64_t>& keys,
                       const VectorStore* before,
                       std::span<const std::uint64_t> before_keys,
                       const CatalogOptions& options,
                       Embedder& embedder,
                       std::size_t dim,
                       EmbeddingCache& cache,
                       VectorStore& vectors,
                       ThreadPool& pool,
                       std::size_t& embedded,
                       const ProgressCallback& progress) {
    // Rows `before` holds at the same position need neither the cache nor the embedder.
    const auto kept = [&](std::size_t i) { return before != nullptr && before_keys[i] == keys[i]; };
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (!kept(i) && cache.find(keys[i]) == nullptr) {
            missing.push_back(i);
        }
    }
    const std::size_t batch = std::max<std::size_t>(options.embed_batch, 1);
    const std::size_t batches = (missing.size() + batch - 1) / batch;
    std::vector<Result<std::vector<std::vector<float>>>> results(
        batches, Status{Errc::internal, "not embedded"});
    std::atomic<bool> failed{false};  // later batches are not worth the embedder's time
    report(progress, "embeddings", 0, missing.size());
    pool.parallel_for(
        batches,
        1,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t b = begin; b < end && !failed.load(std::memory_order_relaxed); ++b) {
                const std::size_t first = b * batch;
                const std::size_t last = std::min(first + batch, missing.size());
                std::vector<std::string> chunk;
                chunk.reserve(last - first);
                for (std::size_t j = first; j < last; ++j) {
                    chunk.push_back(*texts[missing[j]]);
                }
                results[b] = embed_batch(embedder, chunk, dim);
                if (!results[b]) {
                    failed.store(true, std::memory_order_relaxed);
                }
            }
        },
        [&](std::size_t done) {
            if (!failed.load(std::memory_order_relaxed)) {
                report(
                    progress, "embeddings", std::min(done * batch, missing.size()), missing.size());
            }
        });
    for (std::size_t b = 0; b < batches; ++b) {
        if (!results[b]) {
            return results[b].status();
        }
        for (std::size_t j = 0; j < results[b]->size(); ++j) {
            cache.put(keys[missing[b * batch + j]], std::move((*results[b])[j]));
            ++embedded;
        }
    }
    const auto row_of = [&](std::size_t i) { return cache.find(keys[i])->data(); };
    if (before != nullptr) {
        // The previous rows' chunks, shared, except the chunks of the rows that changed.
        std::vector<std::size_t> changed;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            if (!kept(i)) {
                changed.push_back(i);
            }
        }
        vectors = VectorStore::patched(*before, changed, row_of);
    } else {
        PodVector<float> rows(texts.size() * dim);  // not zeroed: every row is written below
        for (std::size_t i = 0; i < texts.size(); ++i) {
            std::memcpy(rows.data() + i * dim, row_of(i), dim * sizeof(float));
        }
        vectors = VectorStore(dim, std::move(rows));
    }
    cache.retain(keys);
    return {};
}

/// The EmbeddingCache keys of every document, reusing the ones computed by earlier commits.
std::vector<std::uint64_t> embed_keys_of(const std::vector<CachedDocument*>& docs,
                                         const std::string& model) {
    const std::uint64_t model_hash = fnv1a(model) | 1U;  // never 0, which means "not computed"
    std::vector<std::uint64_t> keys;
    keys.reserve(docs.size());
    for (CachedDocument* doc : docs) {
        if (doc->embed_model_hash != model_hash) {
            doc->embed_key = EmbeddingCache::key(model, doc->text);
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

/// Fills the dense side of `snap` (or its dense_error), sharing previous->dense when possible.
void build_dense(Snapshot& snap,
                 const std::vector<CachedDocument*>& docs,
                 const std::vector<std::uint64_t>& doc_keys,
                 DocumentCache& documents,
                 const CatalogOptions& options,
                 Embedder& embedder,
                 EmbeddingCache& cache,
                 const Snapshot* previous,
                 ThreadPool& pool,
                 CommitInfo& info,
                 const ProgressCallback& progress) {
    Status s;
    try {
        const std::vector<std::string>& corpus = documents.corpus(docs, doc_keys);
        embedder.fit(corpus);  // corpus statistics first, so model_id() names the fitted model
        snap.embedder_model = embedder.model_id();
        const std::size_t dim = embedder.dim();
        if (dim == 0) {
            snap.dense_error =
                Status{Errc::dimension_mismatch, "embedder reports dimension 0"}.to_string();
            return;
        }
        snap.embed_keys = embed_keys_of(docs, snap.embedder_model);
        if (previous != nullptr && previous->dense &&
            previous->embedder_model == snap.embedder_model &&
            previous->dense->vectors().dim() == dim && previous->embed_keys == snap.embed_keys) {
            snap.dense = previous->dense;
            info.dense_reused = true;
            return;
        }
        seed_from_previous(previous, snap.embedder_model, dim, snap.embed_keys, cache);
        std::vector<const std::string*> texts;
        texts.reserve(docs.size());
        for (const std::string& text : corpus) {
            texts.push_back(&text);
        }
        auto vectors = std::make_shared<VectorStore>();
        const bool aligned = previous != nullptr && previous->dense &&
                             previous->embedder_model == snap.embedder_model &&
                             previous->dense->vectors().dim() == dim &&
                             previous->dense->vectors().size() == docs.size() &&
                             previous->embed_keys.size() == docs.size();
        s = embed_documents(texts,
                            snap.embed_keys,
                            aligned ? &previous->dense->vectors() : nullptr,
                            aligned ? std::span<const std::uint64_t>(previous->embed_keys)
                                    : std::span<const std::uint64_t>(),
                            options,
                            embedder,
                            dim,
                            cache,
                            *vectors,
                            pool,
                            info.embedded,
                            progress);
        if (s.ok()) {
            const std::size_t rows = texts.size();
            report(progress, "dense", 0, rows);
            snap.dense = patched_dense(previous, snap, vectors, options.dense);
            if (snap.dense) {
                info.dense_patched = true;
            } else {
                snap.dense = make_dense_index(
                    std::move(vectors), options.dense, &pool, [&](std::size_t done) {
                        report(progress, "dense", done, rows);
                    });
            }
            report(progress, "dense", rows, rows);
            return;
        }
    } catch (const std::exception& e) {
        s = {Errc::unavailable, std::string("embedder failed: ") + e.what()};
    }
    snap.embed_keys.clear();
    snap.dense_error = s.to_string();
}

/// A snapshot with nothing indexed yet: generation, options and analyzers.
std::shared_ptr<Snapshot> start_snapshot(const CatalogOptions& options, std::uint64_t generation) {
    auto snap = std::make_shared<Snapshot>();
    snap->generation = generation;
    snap->options = options;
    snap->analyzer = Analyzer(options.analyzer);
    AnalyzerOptions surface_options = options.analyzer;
    surface_options.stem = false;
    snap->surface_analyzer = Analyzer(surface_options);
    return snap;
}

/// The embedder's word vectors when neighbour expansion is on; an optional capability, so a
/// failure only turns the expansion off.
std::shared_ptr<const WordVectors> word_vectors_for(Embedder* embedder,
                                                    const CatalogOptions& options) {
    if (embedder == nullptr || options.expansion.neighbours == 0) {
        return nullptr;
    }
    try {
        return embedder->word_vectors();
    } catch (const std::exception&) {
        return nullptr;
    }
}

/// Points a record's names and texts at `server` and `tool` (which the snapshot's source owns).
void set_texts(ToolRecord& record,
               const ServerSpec& server,
               const ToolSpec& tool,
               ToolAction action) {
    record.server = server.name;
    record.tool = tool.name;
    record.title = tool.title;
    record.description = tool.description;
    record.input_schema = tool.input_schema.empty() ? std::string_view(R"({"type":"object"})")
                                                    : std::string_view(tool.input_schema);
    record.annotations = tool.annotations;
    record.action = action;
}

ToolRecord tool_record(const ServerSpec& server,
                       const ToolSpec& tool,
                       std::uint32_t server_index,
                       ToolAction action) {
    ToolRecord record;
    record.server_index = server_index;
    set_texts(record, server, tool, action);
    return record;
}

/// What the pass over the ACTIVE servers' tools collects besides the snapshot's records.
struct Collected {
    std::vector<Bm25DocumentTerms> terms;  ///< ToolId order
    std::vector<CachedDocument*> docs;     ///< ToolId order
    std::vector<std::uint64_t> doc_keys;   ///< DocumentCache keys, ToolId order
};

/// How often the documents phase reports, in tools.
constexpr std::size_t kDocumentsPerReport = 1024;

/// Tools rendered per chunk of the parallel loop: enough to amortize claiming a chunk, few
/// enough to balance the threads.
constexpr std::size_t kDocumentsPerChunk = 32;

/// One tool of an ACTIVE server, in ToolId order, before its document is known.
struct PendingTool {
    const ServerSpec* server = nullptr;
    const StagedTool* tool = nullptr;
    std::uint64_t key = 0;
    CachedDocument* doc = nullptr;  ///< null until rendered (a cache miss)
};

/// Misses rendered per window: each window is rendered on the pool, then interned and cached
/// before the next, so the term strings of only one window are resident at a time (at a
/// million tools, those of every document would take gigabytes).
constexpr std::size_t kDocumentsPerWindow = 4096;

/// Renders and analyzes the tools the cache lacks, on the pool, then caches them in ToolId
/// order (so term ids are those of a sequential build). `cached` tools are already done.
void render_missing(std::vector<PendingTool>& pending,
                    const std::vector<std::size_t>& misses,
                    const Analyzer& analyzer,
                    const FieldWeights& weights,
                    DocumentCache& documents,
                    ThreadPool& pool,
                    std::size_t& rendered,
                    const ProgressCallback& progress) {
    std::vector<std::optional<CachedDocument>> fresh(std::min(misses.size(), kDocumentsPerWindow));
    const std::size_t cached = pending.size() - misses.size();
    std::size_t reported = 0;
    for (std::size_t window = 0; window < misses.size(); window += kDocumentsPerWindow) {
        const std::size_t count = std::min(kDocumentsPerWindow, misses.size() - window);
        pool.parallel_for(
            count,
            kDocumentsPerChunk,
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    const PendingTool& p = pending[misses[window + i]];
                    fresh[i] = DocumentCache::render(*p.server, *p.tool, analyzer, weights);
                }
            },
            [&](std::size_t done) {
                // At most one report per kDocumentsPerReport tools; the last one (every miss
                // rendered) comes after interning.
                const std::size_t total_done = window + done;
                if (total_done < misses.size() && total_done - reported >= kDocumentsPerReport) {
                    reported = total_done;
                    report(progress, "documents", cached + total_done, pending.size());
                }
            });
        for (std::size_t i = 0; i < count; ++i) {
            if (fresh[i]) {
                PendingTool& p = pending[misses[window + i]];
                p.doc = documents.add(p.key, std::move(*fresh[i]));
                fresh[i].reset();
                ++rendered;
            }
        }
    }
}

/// Appends the remembered documents of the `count` tools that follow `pending` (an unedited
/// server of the remembered build) without walking its tools; false, appending nothing, when
/// the remembered build lacks any of them.
bool take_remembered(const DocumentCache& documents,
                     const ServerSpec& server,
                     std::size_t count,
                     std::vector<PendingTool>& pending) {
    const std::size_t first = pending.size();
    if (first + count > documents.remembered_count() ||
        documents.remembered_terms().size() != documents.remembered_count()) {
        return false;
    }
    for (std::size_t id = first; id < first + count; ++id) {
        if (documents.remembered(id) == nullptr) {
            return false;
        }
    }
    for (std::size_t id = first; id < first + count; ++id) {
        pending.push_back(
            {&server, nullptr, documents.remembered_key(id), documents.remembered(id)});
    }
    return true;
}

/// Records every tool of the ACTIVE servers in ToolId order (servers by name, tools by name) and
/// collects its cached document, rendering the missing ones on the pool. With `reuse` (a
/// snapshot of the same layout) its server table is shared, its tool records copied and only
/// their views re-pointed, and the servers it shares unedited take their documents from the build
/// of `reuse` when the cache remembers it.
void collect_tools(const StagedCatalog& staged,
                   const CatalogOptions& options,
                   DocumentCache& documents,
                   const Snapshot* reuse,
                   Snapshot& snap,
                   Collected& out,
                   ThreadPool& pool,
                   std::size_t& rendered,
                   const ProgressCallback& progress) {
    std::size_t total = 0;
    for (const auto& [server_name, server] : staged) {
        total += server->meta.status == ServerStatus::active ? server->tools.size() : 0;
    }
    report(progress, "documents", 0, total);
    // Keys and cached documents first (hashing only), then the misses on the pool.
    std::vector<PendingTool> pending;
    pending.reserve(total);
    std::vector<std::size_t> misses;
    const bool remembered = reuse != nullptr && documents.remembers(reuse->generation);
    const std::shared_ptr<const StagedCatalog> previous_staged =
        remembered ? reuse->source.get() : nullptr;
    auto previous_server = remembered ? previous_staged->begin() : staged.end();
    // Per ACTIVE server: its records and documents are those of `reuse`, by ToolId range, so
    // neither pass walks its tools.
    std::vector<char> taken_whole;
    for (const auto& [server_name, server] : staged) {
        // Same layout: the previous catalog has the same servers in the same order.
        const bool unedited = remembered && (previous_server++)->second == server;
        if (server->meta.status != ServerStatus::active) {
            continue;
        }
        if (unedited && take_remembered(documents, server->meta, server->tools.size(), pending)) {
            taken_whole.push_back(1);
            continue;
        }
        taken_whole.push_back(0);
        for (const auto& [tool_name, tool] : server->tools) {
            const std::size_t id = pending.size();
            PendingTool p{&server->meta, tool.get(), 0, nullptr};
            if (unedited) {
                p.key = documents.remembered_key(id);
                p.doc = documents.remembered(id);
            } else {
                p.key = DocumentCache::key(server->meta, *tool);
                p.doc = documents.find(p.key);
            }
            if (p.doc == nullptr) {
                misses.push_back(id);
            }
            pending.push_back(p);
        }
    }
    render_missing(
        pending, misses, snap.analyzer, options.bm25.weights, documents, pool, rendered, progress);

    auto servers = std::make_shared<ServerTable>();
    if (reuse != nullptr) {
        snap.servers = reuse->servers;
        snap.tools = reuse->tools;
        snap.viewed = reuse->viewed;  // unedited servers' records still view it
    }
    out.terms.reserve(total);
    out.docs.reserve(total);
    out.doc_keys.reserve(total);
    std::size_t at = 0;    // position in pending
    std::size_t next = 0;  // ToolId of the next tool
    std::size_t active = 0;
    for (const auto& [server_name, server] : staged) {
        if (server->meta.status != ServerStatus::active) {
            continue;
        }
        if (taken_whole[active++] != 0) {
            // Its records, copied from `reuse`, already view its unchanged tool specs; its
            // documents are the remembered ones at the same ids.
            const std::size_t count = server->tools.size();
            const auto docs = documents.remembered_docs().subspan(at, count);
            const auto keys = documents.remembered_keys().subspan(at, count);
            const auto terms = documents.remembered_terms().subspan(at, count);
            out.docs.insert(out.docs.end(), docs.begin(), docs.end());
            out.doc_keys.insert(out.doc_keys.end(), keys.begin(), keys.end());
            out.terms.insert(out.terms.end(), terms.begin(), terms.end());
            at += count;
            next += count;
            continue;
        }
        const auto server_index = static_cast<std::uint32_t>(servers->records.size());
        ServerRecord record{server->meta.name,
                            server->meta.description,
                            server->meta.category,
                            server->meta.environment,
                            static_cast<ToolId>(snap.tools.size()),
                            0};
        for (const auto& [tool_name, tool] : server->tools) {
            const PendingTool& p = pending[at++];
            if (p.doc == nullptr) {
                continue;  // validated at upsert; unreachable in practice
            }
            out.terms.push_back({p.doc->term_ids, p.doc->length});
            out.docs.push_back(p.doc);
            out.doc_keys.push_back(p.key);
            if (reuse != nullptr) {
                set_texts(snap.tools[next], server->meta, *tool, p.doc->action);
            } else {
                snap.tools.push_back(tool_record(server->meta, *tool, server_index, p.doc->action));
            }
            ++next;
        }
        if (reuse == nullptr) {
            record.end_tool = static_cast<ToolId>(snap.tools.size());
            servers->index.emplace(record.name, server_index);
            servers->records.push_back(std::move(record));
        }
    }
    if (reuse == nullptr) {
        snap.servers = std::move(servers);
    }
    report(progress, "documents", next, total);
}

/// A build patches the previous build's BM25 postings while at most this fraction of the
/// documents changed; past it, laying them out in full costs about the same.
constexpr std::size_t kPatchOneIn = 4;

/// The BM25 index of the collected documents: the previous build's, patched, when `reuse` was
/// built from the documents the cache remembers and few of them changed; laid out in full
/// otherwise (and always after the vocabulary was compacted or the index was read from a file).
Bm25Index layout_bm25(DocumentCache& documents,
                      const Snapshot* reuse,
                      const Collected& collected,
                      const Bm25Options& options) {
    const std::size_t n = collected.doc_keys.size();
    if (reuse != nullptr && documents.remembers(reuse->generation) && reuse->bm25.num_docs() == n) {
        std::vector<ToolId> changed;
        std::vector<Bm25DocumentTerms> previous_terms;
        for (std::size_t id = 0; id < n && changed.size() * kPatchOneIn <= n; ++id) {
            if (collected.doc_keys[id] != documents.remembered_key(id)) {
                changed.push_back(static_cast<ToolId>(id));
                // The remembered build's terms (they view its document, cached until this build
                // retains).
                previous_terms.push_back(documents.remembered_terms()[id]);
            }
        }
        if (changed.size() * kPatchOneIn <= n) {
            auto patched = Bm25Index::patched(reuse->bm25,
                                              documents.vocabulary(),
                                              collected.terms,
                                              changed,
                                              previous_terms,
                                              options);
            if (patched != nullptr) {
                return std::move(*patched);
            }
        }
    }
    return Bm25Index::from_documents(documents.vocabulary(), collected.terms, options);
}

/// A build renders afresh once the vocabulary holds this many times more terms than the index
/// uses (terms of replaced documents stay interned until then).
constexpr std::size_t kDeadTermFactor = 2;
constexpr std::size_t kDeadTermSlack = 4096;

/// Drops the document cache when most of its vocabulary is dead, so the next build interns only
/// live terms.
void compact_vocabulary(const Bm25Index& bm25, DocumentCache& documents) {
    const std::span<const std::uint32_t> offsets = bm25.offsets();
    std::size_t live = 0;
    for (std::size_t t = 0; t + 1 < offsets.size(); ++t) {
        live += offsets[t + 1] > offsets[t] ? 1U : 0U;
    }
    if (bm25.num_terms() > kDeadTermFactor * live + kDeadTermSlack) {
        documents.clear();
    }
}

/// Builds from this many tools on lay out their BM25 postings beside the dense index.
constexpr std::size_t kOverlapMinTools = 8192;

/// One function on a thread of its own, joined by join() or, should the caller unwind first,
/// by the destructor; join() rethrows what the function threw.
class BackgroundTask {
public:
    BackgroundTask() = default;
    BackgroundTask(const BackgroundTask&) = delete;
    BackgroundTask& operator=(const BackgroundTask&) = delete;
    BackgroundTask(BackgroundTask&&) = delete;
    BackgroundTask& operator=(BackgroundTask&&) = delete;
    ~BackgroundTask() {
        if (thread_.joinable()) {
            thread_.join();
        }
    }
    template <class F>
    void start(F f) {
        thread_ = std::thread([this, f]() mutable {
            try {
                f();
            } catch (...) {
                error_ = std::current_exception();
            }
        });
    }
    void join() {
        thread_.join();
        if (error_) {
            std::rethrow_exception(error_);
        }
    }

private:
    std::thread thread_;
    std::exception_ptr error_;
};

/// Whether a record's view shows `text`. Records view the staged strings themselves, so where
/// they point usually decides without reading the bytes.
bool views_text(std::string_view view, const std::string& text) {
    return (view.data() == text.data() && view.size() == text.size()) || view == text;
}

}  // namespace

void index_names(Snapshot& snap, const StagedCatalog& staged) {
    auto names = std::make_shared<ToolNames>();
    std::size_t staged_tools = 0;
    for (const auto& [server_name, server] : staged) {
        staged_tools += server->tools.size();
    }
    std::vector<ToolKeyView> keys;  // views of `staged`, alive until the names are built
    keys.reserve(staged_tools);
    names->tools.reserve(staged_tools);
    ToolId next = 0;
    for (const auto& [server_name, server] : staged) {
        const bool active = server->meta.status == ServerStatus::active;
        for (const auto& [tool_name, tool] : server->tools) {
            keys.push_back({server->meta.name, tool->name});
            const bool indexed = active && next < snap.tools.size() &&
                                 views_text(snap.tools[next].server, server->meta.name) &&
                                 views_text(snap.tools[next].tool, tool->name);
            names->tools.push_back(indexed ? next++ : kNotIndexed);
        }
    }
    names->enhanced = EnhancedNames(keys);
    for (std::size_t i = 0; i < names->tools.size(); ++i) {
        if (names->tools[i] != kNotIndexed) {
            snap.tools[names->tools[i]].enhanced_name = names->enhanced.name(i);  // names is kept
        }
    }
    std::vector<std::string_view> plain(snap.tools.size());
    for (std::size_t i = 0; i < snap.tools.size(); ++i) {
        plain[i] = snap.tools[i].tool;
    }
    names->by_plain = ToolsByName(plain);
    snap.names = std::move(names);
}

namespace {

/// index_names for a catalog view, whose indexed tools are snap.tools in order.
void index_names(Snapshot& snap, const CatalogView& catalog) {
    auto names = std::make_shared<ToolNames>();
    std::vector<ToolKeyView> keys;  // views of `catalog`, alive until the names are built
    keys.reserve(catalog.tools.size());
    names->tools.reserve(catalog.tools.size());
    ToolId next = 0;
    for (const ServerView& server : catalog.servers) {
        const bool active = server.status == ServerStatus::active;
        for (std::uint32_t t = server.first_tool; t < server.end_tool; ++t) {
            keys.push_back({server.name, catalog.tools[t].name});
            names->tools.push_back(active ? next++ : kNotIndexed);
        }
    }
    names->enhanced = EnhancedNames(keys);
    for (std::size_t i = 0; i < names->tools.size(); ++i) {
        if (names->tools[i] != kNotIndexed) {
            snap.tools[names->tools[i]].enhanced_name = names->enhanced.name(i);  // names is kept
        }
    }
    std::vector<std::string_view> plain(snap.tools.size());
    for (std::size_t i = 0; i < snap.tools.size(); ++i) {
        plain[i] = snap.tools[i].tool;
    }
    names->by_plain = ToolsByName(plain);
    snap.names = std::move(names);
}

}  // namespace

BuildOutput build_snapshot(std::shared_ptr<const StagedCatalog> staged,
                           const CatalogOptions& options,
                           Embedder* embedder,
                           EmbeddingCache& cache,
                           std::uint64_t generation) {
    DocumentCache documents;
    return build_snapshot(
        std::move(staged), options, embedder, cache, documents, nullptr, generation);
}

BuildOutput build_snapshot(std::shared_ptr<const StagedCatalog> staged,
                           const CatalogOptions& options,
                           Embedder* embedder,
                           EmbeddingCache& cache,
                           DocumentCache& documents,
                           const Snapshot* previous,
                           std::uint64_t generation,
                           const ProgressCallback& progress) {
    const auto started = std::chrono::steady_clock::now();
    std::shared_ptr<Snapshot> snap = start_snapshot(options, generation);
    std::shared_ptr<const WordVectors> word_vectors = word_vectors_for(embedder, options);
    BuildOutput out;
    Collected collected;
    const Snapshot* reuse =
        previous != nullptr && previous->source && same_layout(*previous->source.get(), *staged)
            ? previous
            : nullptr;
    ThreadPool pool(options.threads);  // starts its threads only for work worth splitting
    collect_tools(
        *staged, options, documents, reuse, *snap, collected, pool, out.info.rendered, progress);
    const bool dense_wanted = embedder != nullptr && !collected.docs.empty();
    // With an embedder the BM25 layout runs on a thread of its own while the dense side is
    // built: both only read the collected documents, and each writes its own part of the
    // snapshot. Its progress is reported once it is joined.
    const bool overlap =
        dense_wanted && pool.threads() > 1 && snap->tools.size() >= kOverlapMinTools;
    const auto lay_out_bm25 = [&] {
        snap->bm25 = layout_bm25(documents, reuse, collected, options.bm25);
    };
    BackgroundTask bm25_task;
    if (overlap) {
        (void)documents.vocabulary();  // the cache's own bookkeeping, on this thread
        bm25_task.start(lay_out_bm25);
    } else {
        report(progress, "bm25", 0, snap->tools.size());
        lay_out_bm25();
        report(progress, "bm25", snap->tools.size(), snap->tools.size());
    }
    if (reuse != nullptr) {
        snap->names = reuse->names;
    } else {
        index_names(*snap, *staged);
    }
    snap->source = StagedSource(std::move(staged));  // owns what the tool records view
    if (dense_wanted) {
        build_dense(*snap,
                    collected.docs,
                    collected.doc_keys,
                    documents,
                    options,
                    *embedder,
                    cache,
                    previous,
                    pool,
                    out.info,
                    progress);
    } else if (embedder == nullptr) {
        snap->dense_error = "no embedder configured";
    }
    if (overlap) {
        bm25_task.join();  // rethrows what the layout threw
        report(progress, "bm25", 0, snap->tools.size());
        report(progress, "bm25", snap->tools.size(), snap->tools.size());
    }
    if (word_vectors) {
        snap->neighbours =
            build_neighbours(snap->analyzer, options.analyzer, std::move(word_vectors), snap->bm25);
    }
    documents.retain(collected.doc_keys);
    documents.remember(generation,
                       std::move(collected.docs),
                       std::move(collected.doc_keys),
                       std::move(collected.terms));
    compact_vocabulary(snap->bm25, documents);

    out.info.generation = generation;
    out.info.servers = snap->servers->records.size();
    out.info.tools = snap->tools.size();
    out.info.dense_ready = snap->dense != nullptr;
    out.info.dense_error = snap->dense_error;
    out.info.build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    out.snapshot = std::move(snap);
    return out;
}

std::shared_ptr<Snapshot> assemble_snapshot(std::shared_ptr<const CatalogView> catalog,
                                            const CatalogOptions& options,
                                            Bm25Index bm25,
                                            std::shared_ptr<const DenseIndex> dense,
                                            std::vector<std::uint64_t> embed_keys,
                                            std::string embedder_model,
                                            std::uint64_t generation) {
    std::shared_ptr<Snapshot> snap = start_snapshot(options, generation);
    auto servers = std::make_shared<ServerTable>();
    snap->tools.reserve(catalog->indexed_tools());
    for (const ServerView& server : catalog->servers) {
        if (server.status != ServerStatus::active) {
            continue;
        }
        const auto server_index = static_cast<std::uint32_t>(servers->records.size());
        ServerRecord record{std::string(server.name),
                            std::string(server.description),
                            std::string(server.category),
                            std::string(server.environment),
                            static_cast<ToolId>(snap->tools.size()),
                            0};
        const std::vector<std::string> server_words = plain_words(server.name);
        for (std::uint32_t t = server.first_tool; t < server.end_tool; ++t) {
            const ToolView& tool = catalog->tools[t];
            ToolRecord r;
            r.server = server.name;
            r.tool = tool.name;
            r.title = tool.title;
            r.description = tool.description;
            r.input_schema = tool.input_schema.empty() ? std::string_view(R"({"type":"object"})")
                                                       : tool.input_schema;
            r.annotations = tool.annotations;
            r.server_index = server_index;
            r.action = action_of_tool(server_words, tool.name);
            snap->tools.push_back(r);
        }
        record.end_tool = static_cast<ToolId>(snap->tools.size());
        servers->index.emplace(record.name, server_index);
        servers->records.push_back(std::move(record));
    }
    snap->servers = std::move(servers);
    snap->bm25 = std::move(bm25);
    index_names(*snap, *catalog);
    snap->source = StagedSource(catalog);  // staged from the view when first asked for
    snap->viewed = std::move(catalog);     // owns what the tool records view
    if (dense) {
        snap->dense = std::move(dense);
        snap->embed_keys = std::move(embed_keys);
        snap->embedder_model = std::move(embedder_model);
    } else {
        snap->dense_error = "no embedder configured";
    }
    return snap;
}

}  // namespace scout::detail
