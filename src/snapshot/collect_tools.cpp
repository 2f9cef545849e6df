// collect_tools.cpp: the documents phase of a snapshot build: a tool record per tool of the
// ACTIVE servers, in ToolId order, and its document, from the cache or rendered on the pool.
#include <algorithm>
#include <optional>

#include "snapshot/build_context.hpp"

namespace scout::detail {

namespace {

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
void render_missing(const BuildContext& ctx,
                    std::vector<PendingTool>& pending,
                    const std::vector<std::size_t>& misses) {
    const Analyzer& analyzer = ctx.snap.analyzer;
    const FieldWeights& weights = ctx.options.bm25.weights;
    std::vector<std::optional<CachedDocument>> fresh(std::min(misses.size(), kDocumentsPerWindow));
    const std::size_t cached = pending.size() - misses.size();
    std::size_t reported = 0;
    for (std::size_t window = 0; window < misses.size(); window += kDocumentsPerWindow) {
        const std::size_t count = std::min(kDocumentsPerWindow, misses.size() - window);
        ctx.pool.parallel_for(
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
                    ctx.report("documents", cached + total_done, pending.size());
                }
            });
        for (std::size_t i = 0; i < count; ++i) {
            if (fresh[i]) {
                PendingTool& p = pending[misses[window + i]];
                p.doc = ctx.documents.add(p.key, std::move(*fresh[i]));
                fresh[i].reset();
                ++ctx.info.rendered;
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

/// The server record at `index` of a snapshot that took the previous build's records, made to
/// show `meta` (a server described anew keeps its place): the table is copied once per build,
/// on the first record that differs (`copied`).
void refresh_server_record(Snapshot& snap,
                           std::size_t index,
                           const ServerSpec& meta,
                           std::shared_ptr<ServerTable>& copied) {
    const ServerRecord& record = snap.servers->records[index];
    if (record.description == meta.description && record.category == meta.category &&
        record.environment == meta.environment) {
        return;
    }
    if (!copied) {
        copied = std::make_shared<ServerTable>(*snap.servers);
        snap.servers = copied;
    }
    ServerRecord& changed = copied->records[index];
    changed.description = meta.description;
    changed.category = meta.category;
    changed.environment = meta.environment;
}

}  // namespace

Collected collect_tools(const BuildContext& ctx, const StagedCatalog& staged) {
    DocumentCache& documents = ctx.documents;
    const Snapshot* reuse = ctx.reuse;
    Snapshot& snap = ctx.snap;
    Collected out;
    std::size_t total = 0;
    for (const auto& [server_name, server] : staged) {
        total += server->meta.status == ServerStatus::active ? server->tools.size() : 0;
    }
    ctx.report("documents", 0, total);
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
    render_missing(ctx, pending, misses);

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
    std::shared_ptr<ServerTable> refreshed;  // reuse's server table, once a record differs
    for (const auto& [server_name, server] : staged) {
        if (server->meta.status != ServerStatus::active) {
            continue;
        }
        const std::size_t server_at = active++;
        if (taken_whole[server_at] != 0) {
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
        if (reuse != nullptr) {
            refresh_server_record(snap, server_at, server->meta, refreshed);
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
    ctx.report("documents", next, total);
    return out;
}

}  // namespace scout::detail
