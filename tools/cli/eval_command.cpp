// eval_command.cpp: `scout eval --catalog FILE --queries FILE [--mode M|all] [--fusion all|SPEC]
// [--auto-k on|RATIO] [--top-k K] [--rerank FILE] [--json] [--ranks FILE]
// [--rerank-candidates FILE]`.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "args/values.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/rerank_candidates.hpp"
#include "eval/evaluation.hpp"
#include "util/file_io.hpp"

namespace scout::cli {
namespace {

/// One row of the table: a mode, and for hybrid rows compared by `--fusion all`, a method.
struct Row {
    Mode mode;
    std::optional<FusionMethod> fusion;
    bool rerank = false;  ///< with the --rerank model
    [[nodiscard]] std::string label() const {
        std::string label =
            fusion ? std::string(mode_name(mode)) + ":" + std::string(fusion_method_name(*fusion))
                   : std::string(mode_name(mode));
        return rerank ? label + "+rerank" : label;
    }
};

nlohmann::json to_json(const eval::Report& r, const Row& row, bool auto_k) {
    nlohmann::json out = {
        {"mode", mode_name(row.mode)},
        {"rerank", row.rerank},
        {"queries", r.queries},
        {"evaluable", r.evaluable},
        {"catalog_gaps", r.catalog_gaps},
        {"degraded", r.degraded},
        {"errors", r.errors},
        {"first_error", r.first_error},
        {"hit_at_1", r.hit_at_1},
        {"hit_at_5", r.hit_at_5},
        {"hit_at_10", r.hit_at_10},
        {"mrr", r.mrr},
        {"recall_at_5", r.recall_at_5},
        {"ndcg_at_5", r.ndcg_at_5},
        {"latency_us", {{"p50", r.p50_us}, {"p95", r.p95_us}, {"p99", r.p99_us}}}};
    if (row.fusion) {
        out["fusion"] = fusion_method_name(*row.fusion);
    }
    if (auto_k) {
        out["auto_k"] = {{"mean_k", r.auto_k_mean}, {"hit", r.hit_at_auto_k}};
    }
    return out;
}

void print_row(const eval::Report& r, const Row& row, bool auto_k) {
    std::printf("%-20s %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %9.1f %9.1f %9.1f",
                row.label().c_str(),
                r.hit_at_1,
                r.hit_at_5,
                r.hit_at_10,
                r.mrr,
                r.recall_at_5,
                r.ndcg_at_5,
                r.p50_us,
                r.p95_us,
                r.p99_us);
    if (auto_k) {
        std::printf(" %7.2f %6.3f", r.auto_k_mean, r.hit_at_auto_k);
    }
    std::printf("\n");
}

/// One JSON line per evaluable query: where its first relevant tool ranked, what ranked first,
/// and the ranked list as [server, tool, score, relevant] (for fusion analysis).
void write_ranks(std::ostream& out, const eval::Report& r, const Row& row) {
    for (const eval::QueryOutcome& o : r.outcomes) {
        nlohmann::json line = {{"mode", row.label()},
                               {"id", o.id},
                               {"rank", o.first_relevant_rank},
                               {"top", {{"server", o.top.server}, {"tool", o.top.tool}}}};
        nlohmann::json hits = nlohmann::json::array();
        for (const eval::RankedHit& h : o.hits) {
            hits.push_back({h.key.server, h.key.tool, h.score, h.relevant});
        }
        line["hits"] = std::move(hits);
        out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
}

}  // namespace

int run_eval(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, eval_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args* args = &*parsed.args;
    if (!args->positional().empty()) {
        return fail("eval takes no positional arguments");
    }
    if (args->get("rerank-depth") && !args->get("rerank-candidates")) {
        return fail("--rerank-depth applies to --rerank-candidates, which is not given");
    }
    const bool all_modes = args->get("mode") == "all";
    auto search = search_options(*args, /*read_mode=*/!all_modes);
    if (!search) {
        return fail(search.status().message());
    }
    const bool all_fusions = args->get("fusion").value_or("").rfind("all", 0) == 0;
    std::vector<Row> rows;
    for (Mode mode : all_modes || all_fusions
                         ? std::vector<Mode>{Mode::bm25, Mode::dense, Mode::hybrid}
                         : std::vector<Mode>{search->mode}) {
        if (mode == Mode::hybrid && all_fusions) {
            for (FusionMethod m : kFusionMethods) {
                rows.push_back({mode, m});
            }
        } else {
            rows.push_back({mode, std::nullopt});
        }
    }
    if (search->reranker != nullptr) {
        // A lone hybrid row becomes the re-ranked one; with several modes it is added after them.
        if (rows.size() == 1 && rows[0].mode == Mode::hybrid) {
            rows[0].rerank = true;
        } else if (!all_fusions) {
            rows.push_back({Mode::hybrid, std::nullopt, true});
        }
    }
    const bool auto_k = search->auto_k;
    auto path = args->get("queries");
    if (!path) {
        return fail("--queries FILE is required");
    }
    auto queries = eval::load_queries(*path);
    if (!queries) {
        return fail(queries.status().message());
    }
    Progress progress(*args);
    auto loaded = load_catalog(*args, &progress);
    if (!loaded) {
        return fail(loaded.status().message());
    }
    std::ofstream ranks;
    detail::FileLock ranks_lock;  // held while the ranks are written (in place, not renamed)
    if (auto file = args->get("ranks")) {
        auto lock = detail::lock_for_writing_in_place(*file);
        if (!lock) {
            return fail("--ranks: " + lock.status().message());
        }
        ranks_lock = std::move(lock.value());
        ranks.open(*file, std::ios::trunc);
        if (!ranks) {
            return fail("--ranks: cannot write " + *file);
        }
    }
    nlohmann::json reports = nlohmann::json::array();
    std::optional<eval::Report> bm25_report;
    std::optional<eval::Report> dense_report;
    if (!args->has("json")) {
        std::printf("catalog: %zu servers, %zu tools indexed in %.1f ms (%zu embedded%s%s)\n",
                    loaded->info.servers,
                    loaded->info.tools,
                    loaded->info.build_ms,
                    loaded->info.embedded,
                    loaded->info.dense_ready ? "" : "; dense unavailable: ",
                    loaded->info.dense_ready ? "" : loaded->info.dense_error.c_str());
        std::printf("queries: %zu (%zu evaluable, %zu catalog gaps)\n",
                    queries->size(),
                    static_cast<std::size_t>(
                        std::count_if(queries->begin(),
                                      queries->end(),
                                      [](const auto& q) { return !q.relevant.empty(); })),
                    static_cast<std::size_t>(
                        std::count_if(queries->begin(), queries->end(), [](const auto& q) {
                            return q.relevant.empty();
                        })));
        std::printf("%-20s %6s %6s %6s %6s %6s %6s %9s %9s %9s%s\n",
                    "mode",
                    "H@1",
                    "H@5",
                    "H@10",
                    "MRR",
                    "R@5",
                    "nDCG@5",
                    "p50 us",
                    "p95 us",
                    "p99 us",
                    auto_k ? "  mean k  H@auto" : "");
    }
    for (const Row& row : rows) {
        eval::Options eo;
        eo.search = search.value();
        eo.search.mode = row.mode;
        if (!row.rerank) {
            eo.search.reranker = nullptr;
        }
        eo.fetch_factor = loaded->catalog->options().fusion.fetch_factor;
        if (progress.enabled()) {
            eo.progress = [&progress, &row](std::size_t done, std::size_t total) {
                progress.update("evaluating " + row.label(), done, total);
            };
        }
        if (row.fusion) {
            FusionOptions fusion = loaded->catalog->options().fusion;
            fusion.method = *row.fusion;
            eo.search.fusion = fusion;
        }
        const eval::Report report = eval::evaluate(loaded->searcher, queries.value(), eo);
        progress.finish();
        if (ranks.is_open()) {
            write_ranks(ranks, report, row);
        }
        if (args->has("json")) {
            reports.push_back(to_json(report, row, auto_k));
        } else {
            print_row(report, row, auto_k);
        }
        if (report.errors > 0) {
            // Failed searches (a query over the size limit, say) count as misses: say so.
            std::cerr << "scout: " << row.label() << ": " << report.errors << " of "
                      << report.evaluable
                      << " evaluable queries failed and count as misses (first: "
                      << report.first_error << ")\n";
        }
        if (row.mode == Mode::bm25) {
            bm25_report = report;
        } else if (row.mode == Mode::dense) {
            dense_report = report;
        }
    }
    if (auto file = args->get("rerank-candidates")) {
        SearchOptions options = search.value();
        options.reranker = nullptr;
        if (auto depth = args->get("rerank-depth")) {
            if (std::string refused = args::read_whole_into(
                    *depth, 1, std::size_t{10000}, options.rerank_candidates_depth);
                !refused.empty()) {
                return fail("--rerank-depth " + refused);
            }
        }
        if (Status s = write_rerank_candidates(*file,
                                               loaded->searcher,
                                               queries.value(),
                                               options,
                                               loaded->catalog->options().fusion.fetch_factor);
            !s.ok()) {
            return fail("--rerank-candidates: " + s.message());
        }
    }
    // The union bound: a relevant tool in either branch's top 5, what no fusion can exceed at 5.
    const std::optional<double> union5 =
        bm25_report && dense_report
            ? std::optional(eval::union_hit_at(*bm25_report, *dense_report, 5))
            : std::nullopt;
    if (union5 && !args->has("json")) {
        std::printf("%-20s %6s %6.3f   (a relevant tool in the top 5 of BM25 or of dense)\n",
                    "union bound",
                    "",
                    *union5);
    }
    if (union5 && args->has("json")) {
        reports.push_back({{"mode", "union"}, {"hit_at_5", *union5}});
    }
    const std::size_t embedded = loaded->meter ? loaded->meter->texts() : 0;
    const double embed_ms = loaded->meter ? loaded->meter->milliseconds() : 0.0;
    if (!args->has("json")) {
        std::printf(
            "embedder: %s; %zu texts embedded in %.1f ms (documents and queries, cache hits "
            "included)\n",
            loaded->meter ? loaded->meter->model_id().c_str() : "none",
            embedded,
            embed_ms);
    }
    if (args->has("json")) {
        std::cout << (reports.size() == 1 ? reports[0] : reports).dump(2) << "\n";
    }
    return kExitOk;
}

}  // namespace scout::cli
