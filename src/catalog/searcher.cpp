// searcher.cpp: one query through the pipeline: validate -> scope bitset -> BM25 (terms from
// bm25_query.cpp) and dense branches (each fetching top_k x fetch_factor over the allowed
// tools) -> fusion -> hits.
#include <algorithm>
#include <chrono>

#include "analysis/utf8.hpp"
#include "catalog/bm25_query.hpp"
#include "embed/query_embedding.hpp"
#include "fusion/fusion.hpp"
#include "scout/searcher.hpp"
#include "snapshot/snapshot.hpp"
#include "telemetry/telemetry.hpp"

namespace scout {
namespace {

using detail::Snapshot;

/// The allowed tools of a request, or nullopt when the request has no scope (all allowed).
std::optional<Bitset> scope_filter(const Snapshot& snap, const SearchOptions& options) {
    if (!options.servers && !options.environment) {
        return std::nullopt;
    }
    Bitset allowed(snap.tools.size());
    const auto admit = [&](const detail::ServerRecord& server) {
        if (!options.environment || server.environment == *options.environment) {
            allowed.set_range(server.first_tool, server.end_tool);
        }
    };
    if (options.servers) {
        for (const std::string& name : *options.servers) {
            if (auto it = snap.server_index.find(name); it != snap.server_index.end()) {
                admit(snap.servers[it->second]);
            }
        }
    } else {
        for (const auto& server : snap.servers) {
            admit(server);
        }
    }
    return allowed;
}

Hit make_hit(const Snapshot& snap, ToolId id) {
    const detail::ToolRecord& t = snap.tools[id];
    Hit hit;
    hit.id = id;
    hit.name = t.enhanced_name;
    hit.server = t.server;
    hit.tool = t.tool;
    hit.title = t.title;
    hit.description = t.description;
    hit.input_schema = t.input_schema;
    hit.annotations = t.annotations;
    return hit;
}

Status check_query(std::string_view query) {
    if (query.empty()) {
        return {Errc::invalid_argument, "query is empty"};
    }
    if (query.size() > Searcher::kMaxQueryBytes) {
        return {Errc::invalid_argument, "query is " + std::to_string(query.size()) + " bytes, over the limit of " +
                                            std::to_string(Searcher::kMaxQueryBytes)};
    }
    if (!is_valid_utf8(query)) {
        return {Errc::invalid_argument, "query is not valid UTF-8"};
    }
    return {};
}

struct Branches {
    std::vector<ScoredDoc> bm25;
    std::vector<ScoredDoc> dense;
    bool ran_bm25 = false;
    bool ran_dense = false;
};

SearchResult assemble(const Snapshot& snap, Branches& b, std::size_t k, const FusionOptions& fusion) {
    SearchResult result;
    result.generation = snap.generation;
    result.hits.reserve(k);
    if (b.ran_bm25 && b.ran_dense) {
        const std::vector<ScoredDoc> lists[2] = {std::move(b.bm25), std::move(b.dense)};
        const double weights[2] = {fusion.bm25_weight, fusion.dense_weight};
        for (const FusedDoc& f : fuse(lists, weights, fusion, k)) {
            Hit hit = make_hit(snap, f.id);
            hit.score = static_cast<float>(f.score);
            hit.bm25_rank = f.ranks[0];
            hit.dense_rank = f.ranks[1];
            hit.bm25_score = f.scores[0];
            hit.dense_score = f.scores[1];
            result.hits.push_back(std::move(hit));
        }
        return result;
    }
    const auto& list = b.ran_bm25 ? b.bm25 : b.dense;
    for (std::size_t r = 0; r < list.size() && r < k; ++r) {
        Hit hit = make_hit(snap, list[r].id);
        hit.score = list[r].score;
        if (b.ran_bm25) {
            hit.bm25_rank = static_cast<std::uint32_t>(r + 1);
            hit.bm25_score = list[r].score;
        } else {
            hit.dense_rank = static_cast<std::uint32_t>(r + 1);
            hit.dense_score = list[r].score;
        }
        result.hits.push_back(std::move(hit));
    }
    return result;
}

/// Tools the whole query names exactly: an enhanced name, else a plain tool name (in scope).
std::vector<ToolId> exact_name_matches(const Snapshot& snap, std::string_view query, const Bitset* filter) {
    while (!query.empty() && (query.front() == ' ' || query.front() == '`' || query.front() == '"')) {
        query.remove_prefix(1);
    }
    while (!query.empty() && (query.back() == ' ' || query.back() == '`' || query.back() == '"')) {
        query.remove_suffix(1);
    }
    std::vector<ToolId> out;
    if (query.empty() || query.find(' ') != std::string_view::npos) {
        return out;
    }
    const auto allowed = [&](ToolId id) { return filter == nullptr || filter->test(id); };
    if (auto it = snap.tools_by_name.find(std::string(query)); it != snap.tools_by_name.end()) {
        std::copy_if(it->second.begin(), it->second.end(), std::back_inserter(out), allowed);
    } else if (auto id = snap.names.resolve(query); id && allowed(static_cast<ToolId>(*id))) {
        out.push_back(static_cast<ToolId>(*id));
    }
    return out;
}

/// Moves the exactly named tools to the front, keeping the ranked order of everything else.
void put_exact_first(const Snapshot& snap, const std::vector<ToolId>& exact, std::size_t k,
                     std::vector<Hit>& hits) {
    std::vector<Hit> front;
    for (ToolId id : exact) {
        auto it = std::find_if(hits.begin(), hits.end(), [&](const Hit& h) { return h.id == id; });
        if (it != hits.end()) {
            front.push_back(std::move(*it));
            hits.erase(it);
        } else {
            front.push_back(make_hit(snap, id));
        }
    }
    hits.insert(hits.begin(), std::make_move_iterator(front.begin()), std::make_move_iterator(front.end()));
    if (hits.size() > k) {
        hits.resize(k);
    }
}

Result<SearchResult> run_search(const Snapshot& snap, const std::shared_ptr<Embedder>& embedder,
                                std::string_view query, const std::span<const float>* given_vector,
                                const SearchOptions& options) {
    if (Status s = check_query(query); !s.ok()) {
        return s;
    }
    if (snap.tools.empty()) {
        SearchResult empty;
        empty.mode = options.mode;
        empty.catalog_empty = true;
        empty.generation = snap.generation;
        return empty;
    }
    const std::size_t user_k = std::clamp<std::size_t>(options.top_k, 1, SearchOptions::kMaxTopK);
    // With auto_k the ranked list is as long as allowed and cut afterwards by its scores.
    const std::size_t k = options.auto_k ? SearchOptions::kMaxTopK : user_k;
    // Branches feeding RRF fetch `fetch` each (the pool fusion ranks); a branch that answers
    // alone returns its top k directly.
    const std::size_t fetch_factor = options.fusion ? options.fusion->fetch_factor : snap.options.fusion.fetch_factor;
    const std::size_t fetch = options.fetch_k != 0 ? options.fetch_k : user_k * std::max<std::size_t>(fetch_factor, 1);
    const std::size_t solo_fetch = std::max(k, fetch);
    const std::optional<Bitset> allowed = scope_filter(snap, options);
    const Bitset* filter = allowed ? &*allowed : nullptr;

    Branches b;
    std::string degraded_reason;
    if (options.mode != Mode::bm25) {
        if (!snap.dense) {
            degraded_reason = snap.dense_error.empty() ? "no dense index" : snap.dense_error;
        } else {
            const std::size_t dim = snap.dense->vectors().dim;
            Result<std::vector<float>> qvec = Status{Errc::internal, "unset"};
            if (given_vector != nullptr) {
                std::vector<float> v(given_vector->begin(), given_vector->end());
                if (v.size() != dim) {
                    return Status{Errc::dimension_mismatch, "query vector has " + std::to_string(v.size()) +
                                                                " components, the index has " + std::to_string(dim)};
                }
                if (!normalize(v.data(), dim)) {
                    return Status{Errc::invalid_argument, "query vector is zero or not finite"};
                }
                qvec = std::move(v);
            } else {
                qvec = embed_query(embedder, std::string(query), options.embed_timeout);
                if (qvec && qvec->size() != dim) {
                    qvec = Status{Errc::embedder_mismatch, "embedder dimension differs from the index"};
                }
            }
            if (qvec) {
                snap.dense->search(qvec->data(), options.mode == Mode::dense ? solo_fetch : fetch, filter, b.dense);
                b.ran_dense = true;
            } else {
                degraded_reason = qvec.status().to_string();
            }
        }
    }
    if (options.mode != Mode::dense || !b.ran_dense) {
        const ToolAction action = detail::query_action(snap, query);
        const std::vector<QueryTerm> terms = detail::bm25_query(snap, query, action);
        snap.bm25.search(std::span<const QueryTerm>(terms), b.ran_dense ? fetch : solo_fetch, filter, b.bm25);
        b.ran_bm25 = true;
        detail::boost_action(snap, action, b.bm25);
    }
    SearchResult result = assemble(snap, b, k, options.fusion.value_or(snap.options.fusion));
    std::size_t exact_count = 0;
    if (options.exact_name_first) {
        const std::vector<ToolId> exact = exact_name_matches(snap, query, filter);
        if (!exact.empty()) {
            put_exact_first(snap, exact, k, result.hits);
            exact_count = std::min(exact.size(), k);
        }
    }
    if (options.auto_k) {
        std::size_t keep = exact_count;
        if (keep == 0) {
            std::vector<float> scores;
            for (const Hit& h : result.hits) {
                scores.push_back(h.score);
            }
            keep = auto_k_cut(scores, std::clamp(options.auto_k_ratio, 1e-6, 1.0));
        }
        result.hits.resize(std::min(keep, result.hits.size()));
    }
    result.degraded = !degraded_reason.empty();
    result.degraded_reason = std::move(degraded_reason);
    result.mode = b.ran_bm25 && b.ran_dense ? Mode::hybrid : (b.ran_dense ? Mode::dense : Mode::bm25);
    return result;
}

std::shared_ptr<const Snapshot> empty_snapshot() {
    static const auto empty = std::make_shared<const Snapshot>();
    return empty;
}

}  // namespace

Searcher::Searcher() : snapshot_(empty_snapshot()) {}

Searcher::Searcher(std::shared_ptr<const detail::Snapshot> snapshot, std::shared_ptr<Embedder> embedder)
    : snapshot_(snapshot ? std::move(snapshot) : empty_snapshot()), embedder_(std::move(embedder)) {}

Searcher::Searcher(std::shared_ptr<const detail::Snapshot> snapshot, std::shared_ptr<Embedder> embedder,
                   std::shared_ptr<detail::Telemetry> telemetry)
    : Searcher(std::move(snapshot), std::move(embedder)) {
    telemetry_ = std::move(telemetry);
}

namespace {

Result<SearchResult> guarded_search(const Snapshot& snap, const std::shared_ptr<Embedder>& embedder,
                                    std::string_view query, const std::span<const float>* given_vector,
                                    const SearchOptions& options) {
    try {
        return run_search(snap, embedder, query, given_vector, options);
    } catch (const std::bad_alloc&) {
        return Status{Errc::internal, "out of memory during search"};
    } catch (const std::exception& e) {
        return Status{Errc::internal, std::string("search failed: ") + e.what()};
    }
}

}  // namespace

Result<SearchResult> Searcher::search(std::string_view query, const SearchOptions& options) const {
    const auto started = std::chrono::steady_clock::now();
    Result<SearchResult> result = guarded_search(*snapshot_, embedder_, query, nullptr, options);
    if (telemetry_) {
        telemetry_->record_search(query, options, result, std::chrono::steady_clock::now() - started);
    }
    return result;
}

Result<SearchResult> Searcher::search(std::string_view query, std::span<const float> query_vector,
                                      const SearchOptions& options) const {
    const auto started = std::chrono::steady_clock::now();
    Result<SearchResult> result = Status{Errc::internal, "unset"};
    try {
        result = guarded_search(*snapshot_, embedder_, query, &query_vector, options);
    } catch (const std::bad_alloc&) {
        result = Status{Errc::internal, "out of memory during search"};
    }
    if (telemetry_) {
        telemetry_->record_search(query, options, result, std::chrono::steady_clock::now() - started);
    }
    return result;
}

std::optional<ToolKey> Searcher::resolve(std::string_view enhanced_name) const {
    auto i = snapshot_->names.resolve(enhanced_name);
    if (!i) {
        return std::nullopt;
    }
    return ToolKey{snapshot_->tools[*i].server, snapshot_->tools[*i].tool};
}

std::optional<Hit> Searcher::find(std::string_view server, std::string_view tool) const {
    auto it = snapshot_->server_index.find(std::string(server));
    if (it == snapshot_->server_index.end()) {
        return std::nullopt;
    }
    const auto& s = snapshot_->servers[it->second];
    for (ToolId id = s.first_tool; id < s.end_tool; ++id) {
        if (snapshot_->tools[id].tool == tool) {
            return make_hit(*snapshot_, id);
        }
    }
    return std::nullopt;
}

std::vector<Hit> Searcher::list_tools(const SearchOptions& options) const {
    const std::optional<Bitset> allowed = scope_filter(*snapshot_, options);
    std::vector<Hit> out;
    for (ToolId id = 0; id < snapshot_->tools.size(); ++id) {
        if (!allowed || allowed->test(id)) {
            out.push_back(make_hit(*snapshot_, id));
        }
    }
    return out;
}

MemoryUsage Searcher::memory_usage() const noexcept {
    const Snapshot& snap = *snapshot_;
    MemoryUsage m;
    m.documents = snap.tools.capacity() * sizeof(detail::ToolRecord) +
                  snap.servers.capacity() * sizeof(detail::ServerRecord);
    for (const detail::ToolRecord& t : snap.tools) {
        m.documents += t.server.capacity() + t.tool.capacity() + t.enhanced_name.capacity() + t.title.capacity() +
                       t.description.capacity() + t.input_schema.capacity() + t.annotations.capacity();
    }
    for (const detail::ServerRecord& s : snap.servers) {
        m.documents += s.name.capacity() + s.description.capacity() + s.category.capacity() +
                       s.environment.capacity() + s.name.capacity() + 48;  // + server_index entry
    }
    m.names = snap.names.memory_bytes();
    m.bm25 = snap.bm25.memory_bytes();
    m.dense = snap.dense ? snap.dense->memory_bytes() : 0;
    return m;
}

std::uint64_t Searcher::generation() const noexcept { return snapshot_->generation; }
std::size_t Searcher::size() const noexcept { return snapshot_->tools.size(); }
bool Searcher::has_dense() const noexcept { return snapshot_->dense != nullptr; }

}  // namespace scout
