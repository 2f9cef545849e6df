// snapshot_builder.cpp: documents -> BM25 postings, cached or fresh embeddings -> dense index,
// enhanced names and id maps; all assembled off to the side before anyone can see it.
#include <chrono>
#include <cmath>
#include <algorithm>
#include <exception>
#include <set>

#include "analysis/lexicon.hpp"
#include "scout/tool_document.hpp"
#include "snapshot/snapshot_builder.hpp"
#include "util/hash.hpp"

namespace scout::detail {

std::uint64_t EmbeddingCache::key(const std::string& model_id, const std::string& text) {
    return mix64(fnv1a(text, fnv1a(std::string_view("\0", 1), fnv1a(model_id))));
}

const std::vector<float>* EmbeddingCache::find(std::uint64_t key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
}

void EmbeddingCache::put(std::uint64_t key, std::vector<float> vec) { entries_[key] = std::move(vec); }

void EmbeddingCache::retain(const std::vector<std::uint64_t>& live) {
    std::unordered_map<std::uint64_t, std::vector<float>> kept;
    kept.reserve(live.size());
    for (std::uint64_t k : live) {
        if (auto it = entries_.find(k); it != entries_.end()) {
            kept.emplace(k, std::move(it->second));
        }
    }
    entries_ = std::move(kept);
}

namespace {

/// The catalog words for neighbour expansion: the unstemmed index terms of every document
/// (taken from its cached analysis, so a commit analyzes nothing again), each with the index
/// terms it stands for. Words under 3 bytes or with digits are left out (their vectors relate
/// them to little of use).
std::shared_ptr<const NeighbourExpander> build_neighbours(const Analyzer& index_analyzer,
                                                          const AnalyzerOptions& analyzer_options,
                                                          std::shared_ptr<const WordVectors> vectors,
                                                          const std::vector<CachedDocument*>& docs) {
    std::set<std::string> words;
    for (const CachedDocument* doc : docs) {
        for (const auto& [term, weight] : doc->weighted_terms) {
            // Skips stems ("~stem") and action terms (which start with a control byte).
            if (!term.empty() && term[0] != '~' && static_cast<unsigned char>(term[0]) >= 0x20) {
                words.insert(term);
            }
        }
    }
    // Stems without their surface forms: a term is its own (only) index term.
    const bool stems_only = analyzer_options.stem && !analyzer_options.keep_surface;
    std::vector<CatalogWord> entries;
    for (const std::string& w : words) {
        if (w.size() < 3 || std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            continue;
        }
        entries.push_back({w, stems_only ? std::vector<std::string>{w} : index_analyzer.analyze(w)});
    }
    return NeighbourExpander::build(std::move(vectors), std::move(entries));
}

/// Embeds the documents the cache does not know; fills `vectors` (unit rows) or returns an error.
Status embed_documents(const std::vector<const std::string*>& texts, const std::vector<std::uint64_t>& keys,
                       const CatalogOptions& options, Embedder& embedder, std::size_t dim,
                       EmbeddingCache& cache, VectorStore& vectors, std::size_t& embedded) {
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (cache.find(keys[i]) == nullptr) {
            missing.push_back(i);
        }
    }
    const std::size_t batch = std::max<std::size_t>(options.embed_batch, 1);
    for (std::size_t start = 0; start < missing.size(); start += batch) {
        const std::size_t end = std::min(start + batch, missing.size());
        std::vector<std::string> chunk;
        for (std::size_t j = start; j < end; ++j) {
            chunk.push_back(*texts[missing[j]]);
        }
        Result<std::vector<float>> out = Status{Errc::internal, "not called"};
        try {
            out = embedder.embed(chunk);
        } catch (const std::exception& e) {
            return {Errc::unavailable, std::string("embedder threw: ") + e.what()};
        } catch (...) {
            return {Errc::unavailable, "embedder threw a non-standard exception"};
        }
        if (!out) {
            return out.status();
        }
        if (out->size() != chunk.size() * dim) {
            return {Errc::dimension_mismatch, "embedder returned " + std::to_string(out->size()) +
                                                  " floats for " + std::to_string(chunk.size()) +
                                                  " texts of dimension " + std::to_string(dim)};
        }
        for (std::size_t j = 0; j < chunk.size(); ++j) {
            std::vector<float> v(out->begin() + static_cast<std::ptrdiff_t>(j * dim),
                                 out->begin() + static_cast<std::ptrdiff_t>((j + 1) * dim));
            if (!normalize(v.data(), dim)) {
                // A zero vector (e.g. a text with no known words) is kept as zero: it matches nothing.
                std::fill(v.begin(), v.end(), 0.0f);
                for (float x : *out) {
                    if (!std::isfinite(x)) {
                        return {Errc::invalid_argument, "embedder returned a non-finite value"};
                    }
                }
            }
            cache.put(keys[missing[start + j]], std::move(v));
            ++embedded;
        }
    }
    vectors.dim = dim;
    vectors.data.resize(texts.size() * dim);
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::vector<float>* v = cache.find(keys[i]);
        std::copy(v->begin(), v->end(), vectors.data.begin() + static_cast<std::ptrdiff_t>(i * dim));
    }
    cache.retain(keys);
    return {};
}

/// The EmbeddingCache keys of every document, reusing the ones computed by earlier commits.
std::vector<std::uint64_t> embed_keys_of(const std::vector<CachedDocument*>& docs, const std::string& model) {
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

/// Fills the dense side of `snap` (or its dense_error), sharing previous->dense when possible.
void build_dense(Snapshot& snap, const std::vector<CachedDocument*>& docs, const CatalogOptions& options,
                 Embedder& embedder, EmbeddingCache& cache, const Snapshot* previous, CommitInfo& info) {
    Status s;
    try {
        std::vector<std::string> corpus;
        corpus.reserve(docs.size());
        for (const CachedDocument* doc : docs) {
            corpus.push_back(doc->text);
        }
        embedder.fit(corpus);  // corpus statistics first, so model_id() names the fitted model
        snap.embedder_model = embedder.model_id();
        const std::size_t dim = embedder.dim();
        if (dim == 0) {
            snap.dense_error = Status{Errc::dimension_mismatch, "embedder reports dimension 0"}.to_string();
            return;
        }
        snap.embed_keys = embed_keys_of(docs, snap.embedder_model);
        if (previous != nullptr && previous->dense && previous->embedder_model == snap.embedder_model &&
            previous->dense->vectors().dim == dim && previous->embed_keys == snap.embed_keys) {
            snap.dense = previous->dense;
            info.dense_reused = true;
            return;
        }
        std::vector<const std::string*> texts;
        texts.reserve(docs.size());
        for (const std::string& text : corpus) {
            texts.push_back(&text);
        }
        auto vectors = std::make_shared<VectorStore>();
        s = embed_documents(texts, snap.embed_keys, options, embedder, dim, cache, *vectors, info.embedded);
        if (s.ok()) {
            snap.dense = make_dense_index(std::move(vectors), options.dense);
            return;
        }
    } catch (const std::exception& e) {
        s = {Errc::unavailable, std::string("embedder failed: ") + e.what()};
    }
    snap.embed_keys.clear();
    snap.dense_error = s.to_string();
}

}  // namespace

BuildOutput build_snapshot(const StagedCatalog& staged, const CatalogOptions& options,
                           Embedder* embedder, EmbeddingCache& cache, std::uint64_t generation) {
    DocumentCache documents;
    return build_snapshot(staged, options, embedder, cache, documents, nullptr, generation);
}

BuildOutput build_snapshot(const StagedCatalog& staged, const CatalogOptions& options,
                           Embedder* embedder, EmbeddingCache& cache, DocumentCache& documents,
                           const Snapshot* previous, std::uint64_t generation) {
    const auto started = std::chrono::steady_clock::now();
    auto snap = std::make_shared<Snapshot>();
    snap->generation = generation;
    snap->options = options;
    snap->analyzer = Analyzer(options.analyzer);
    AnalyzerOptions surface_options = options.analyzer;
    surface_options.stem = false;
    snap->surface_analyzer = Analyzer(surface_options);
    std::shared_ptr<const WordVectors> word_vectors;
    if (embedder != nullptr && options.expansion.neighbours > 0) {
        try {
            word_vectors = embedder->word_vectors();
        } catch (const std::exception&) {
            word_vectors = nullptr;  // an optional capability: without it there is no expansion
        }
    }
    if (options.expansion.lexicon) {
        (void)default_lexicon();  // built here, so no search pays for it
    }

    BuildOutput out;
    Bm25Index::Builder bm25;
    std::vector<CachedDocument*> docs;
    std::vector<std::uint64_t> doc_keys;
    std::vector<ToolKey> keys;
    for (const auto& [server_name, server] : staged) {
        if (server.meta.status != ServerStatus::active) {
            continue;
        }
        const auto server_index = static_cast<std::uint32_t>(snap->servers.size());
        ServerRecord record{server.meta.name, server.meta.description, server.meta.category,
                            server.meta.environment, static_cast<ToolId>(snap->tools.size()), 0};
        for (const auto& [tool_name, tool] : server.tools) {
            const std::uint64_t key = DocumentCache::key(server.meta, tool);
            CachedDocument* doc = documents.get(key, server.meta, tool, snap->analyzer, options.bm25.weights,
                                                out.info.rendered);
            if (doc == nullptr) {
                continue;  // validated at upsert; unreachable in practice
            }
            bm25.begin_document();
            for (const auto& [term, weighted_tf] : doc->weighted_terms) {
                bm25.add(term, weighted_tf);
            }
            docs.push_back(doc);
            doc_keys.push_back(key);
            keys.push_back({server.meta.name, tool.name});
            snap->tools.push_back({server.meta.name, tool.name, {}, tool.title, tool.description,
                                   tool.input_schema.empty() ? R"({"type":"object"})" : tool.input_schema,
                                   tool.annotations, server_index, doc->action});
        }
        record.end_tool = static_cast<ToolId>(snap->tools.size());
        snap->server_index.emplace(record.name, server_index);
        snap->servers.push_back(std::move(record));
    }
    snap->bm25 = std::move(bm25).build(options.bm25);
    if (word_vectors) {
        snap->neighbours = build_neighbours(snap->analyzer, options.analyzer, std::move(word_vectors), docs);
    }
    snap->names = EnhancedNames(keys);
    for (std::size_t i = 0; i < snap->tools.size(); ++i) {
        snap->tools[i].enhanced_name = snap->names.name(i);
        snap->tools_by_name[snap->tools[i].tool].push_back(static_cast<ToolId>(i));
    }

    if (embedder != nullptr && !docs.empty()) {
        build_dense(*snap, docs, options, *embedder, cache, previous, out.info);
    } else if (embedder == nullptr) {
        snap->dense_error = "no embedder configured";
    }
    documents.retain(doc_keys);

    out.info.generation = generation;
    out.info.servers = snap->servers.size();
    out.info.tools = snap->tools.size();
    out.info.dense_ready = snap->dense != nullptr;
    out.info.dense_error = snap->dense_error;
    out.info.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    out.snapshot = std::move(snap);
    return out;
}

}  // namespace scout::detail
