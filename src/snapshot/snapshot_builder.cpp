// snapshot_builder.cpp: runs a build's phases in order (documents, BM25 beside the dense side,
// names, neighbours) over one BuildContext, or assembles an opened index file's snapshot; all
// off to the side before anyone can see it.
#include "snapshot/snapshot_builder.hpp"

#include <chrono>
#include <exception>
#include <thread>

#include "analysis/word_pairs.hpp"
#include "snapshot/build_context.hpp"
#include "snapshot/snapshot_layout.hpp"
#include "snapshot/tool_names.hpp"
#include "util/thread_pool.hpp"

namespace scout::detail {

namespace {

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
    const Snapshot* reuse =
        previous != nullptr && previous->source && same_layout(*previous->source.get(), *staged)
            ? previous
            : nullptr;
    ThreadPool pool(options.threads);  // starts its threads only for work worth splitting
    const BuildContext ctx{
        options, documents, cache, pool, *snap, previous, reuse, out.info, progress};
    Collected collected = collect_tools(ctx, *staged);
    const bool dense_wanted = embedder != nullptr && !collected.docs.empty();
    // With an embedder the BM25 layout runs on a thread of its own while the dense side is
    // built: both only read the collected documents, and each writes its own part of the
    // snapshot. Its progress is reported once it is joined.
    const bool overlap =
        dense_wanted && pool.threads() > 1 && snap->tools.size() >= kOverlapMinTools;
    const auto lay_out_bm25 = [&] { snap->bm25 = layout_bm25(ctx, collected); };
    BackgroundTask bm25_task;
    if (overlap) {
        (void)documents.vocabulary();  // the cache's own bookkeeping, on this thread
        bm25_task.start(lay_out_bm25);
    } else {
        ctx.report("bm25", 0, snap->tools.size());
        lay_out_bm25();
        ctx.report("bm25", snap->tools.size(), snap->tools.size());
    }
    if (reuse != nullptr) {
        snap->names = reuse->names;
    } else {
        index_names(*snap, catalog_tool_names(*staged));
    }
    snap->source = StagedSource(std::move(staged));  // owns what the tool records view
    if (dense_wanted) {
        build_dense(ctx, *embedder, collected);
    } else if (embedder == nullptr) {
        snap->dense_error = "no embedder configured";
    }
    if (overlap) {
        bm25_task.join();  // rethrows what the layout threw
        ctx.report("bm25", 0, snap->tools.size());
        ctx.report("bm25", snap->tools.size(), snap->tools.size());
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
    index_names(*snap, catalog_tool_names(*catalog));
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
