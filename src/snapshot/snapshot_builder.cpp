// snapshot_builder.cpp: documents -> BM25 postings, cached or fresh embeddings -> dense index,
// enhanced names and id maps; all assembled off to the side before anyone can see it.
#include <chrono>
#include <cmath>
#include <exception>

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

void index_field(Bm25Index::Builder& bm25, const Analyzer& analyzer, const std::string& text,
                 float weight, std::vector<std::string>& scratch) {
    scratch.clear();
    analyzer.analyze(text, scratch);
    for (const std::string& term : scratch) {
        bm25.add(term, weight);
    }
}

/// Embeds the documents the cache does not know; fills `vectors` (unit rows) or returns an error.
Status embed_documents(const std::vector<std::string>& texts, const CatalogOptions& options,
                       Embedder& embedder, EmbeddingCache& cache, VectorStore& vectors,
                       std::size_t& embedded) {
    const std::string model = embedder.model_id();
    const std::size_t dim = embedder.dim();
    if (dim == 0) {
        return {Errc::dimension_mismatch, "embedder reports dimension 0"};
    }
    std::vector<std::uint64_t> keys(texts.size());
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        keys[i] = EmbeddingCache::key(model, texts[i]);
        if (cache.find(keys[i]) == nullptr) {
            missing.push_back(i);
        }
    }
    const std::size_t batch = std::max<std::size_t>(options.embed_batch, 1);
    for (std::size_t start = 0; start < missing.size(); start += batch) {
        const std::size_t end = std::min(start + batch, missing.size());
        std::vector<std::string> chunk;
        for (std::size_t j = start; j < end; ++j) {
            chunk.push_back(texts[missing[j]]);
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

}  // namespace

BuildOutput build_snapshot(const StagedCatalog& staged, const CatalogOptions& options,
                           Embedder* embedder, EmbeddingCache& cache, std::uint64_t generation) {
    const auto started = std::chrono::steady_clock::now();
    auto snap = std::make_shared<Snapshot>();
    snap->generation = generation;
    snap->options = options;
    snap->analyzer = Analyzer(options.analyzer);
    if (options.expansion.lexicon) {
        (void)default_lexicon();  // built here, so no search pays for it
    }

    Bm25Index::Builder bm25;
    std::vector<std::string> texts;
    std::vector<ToolKey> keys;
    std::vector<std::string> scratch;
    const FieldWeights& w = options.bm25.weights;
    for (const auto& [server_name, server] : staged) {
        if (server.meta.status != ServerStatus::active) {
            continue;
        }
        const auto server_index = static_cast<std::uint32_t>(snap->servers.size());
        ServerRecord record{server.meta.name, server.meta.description, server.meta.category,
                            server.meta.environment, static_cast<ToolId>(snap->tools.size()), 0};
        for (const auto& [tool_name, tool] : server.tools) {
            auto doc = make_tool_document(server.meta, tool);
            if (!doc) {
                continue;  // validated at upsert; unreachable in practice
            }
            bm25.begin_document();
            index_field(bm25, snap->analyzer, doc->name, w.name, scratch);
            index_field(bm25, snap->analyzer, doc->server, w.server, scratch);
            index_field(bm25, snap->analyzer, doc->server_description, w.server_description, scratch);
            index_field(bm25, snap->analyzer, doc->description, w.description, scratch);
            index_field(bm25, snap->analyzer, doc->parameters, w.parameters, scratch);
            texts.push_back(doc->text());
            keys.push_back({server.meta.name, tool.name});
            snap->tools.push_back({server.meta.name, tool.name, {}, tool.title, tool.description,
                                   tool.input_schema.empty() ? R"({"type":"object"})" : tool.input_schema,
                                   tool.annotations, server_index});
        }
        record.end_tool = static_cast<ToolId>(snap->tools.size());
        snap->server_index.emplace(record.name, server_index);
        snap->servers.push_back(std::move(record));
    }
    snap->bm25 = std::move(bm25).build(options.bm25);
    snap->names = EnhancedNames(keys);
    for (std::size_t i = 0; i < snap->tools.size(); ++i) {
        snap->tools[i].enhanced_name = snap->names.name(i);
        snap->tools_by_name[snap->tools[i].tool].push_back(static_cast<ToolId>(i));
    }

    BuildOutput out;
    if (embedder != nullptr && !texts.empty()) {
        auto vectors = std::make_shared<VectorStore>();
        Status s;
        try {
            embedder->fit(texts);  // corpus statistics first, so model_id() names the fitted model
            snap->embedder_model = embedder->model_id();
            s = embed_documents(texts, options, *embedder, cache, *vectors, out.info.embedded);
        } catch (const std::exception& e) {
            s = {Errc::unavailable, std::string("embedder failed: ") + e.what()};
        }
        if (s.ok()) {
            snap->dense = make_dense_index(std::move(vectors), options.dense);
        } else {
            snap->dense_error = s.to_string();
        }
    } else if (embedder == nullptr) {
        snap->dense_error = "no embedder configured";
    }

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
