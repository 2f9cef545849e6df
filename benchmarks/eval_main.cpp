// eval_main.cpp: scout-bench-eval: retrieval quality of every dataset in bm25, dense and hybrid
// mode (Hit@1, Hit@5, MRR, Recall@5, nDCG@5, latency percentiles), then the token table: the
// full tools/list versus the meta-tools plus one tool_search result, at 650 and 2,000+ tools.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "cli/common.hpp"
#include "cli/index_options.hpp"
#include "datasets.hpp"
#include "eval/dataset_paths.hpp"
#include "eval/token_table.hpp"
#include "meta_tools.hpp"

namespace {

using namespace scout;

/// The options of scout-bench-eval; the embedder and index settings are the CLI's own.
const scout::cli::CommandSpec& bench_spec() {
    static const scout::cli::CommandSpec spec = [] {
        const eval::SyntheticOptions synthetic;
        scout::cli::CommandSpec s{
            "scout-bench-eval",
            "",
            "Retrieval quality per dataset and mode, and the token table (docs in README).",
            {{"datasets",
              {{"root",
                "DIR",
                "the source tree it was built from",
                "repository root holding data/"},
               {"datasets",
                "DIR",
                "$SCOUT_DATASETS, else ../shared/datasets next to the checkout",
                "public datasets; missing ones are skipped"},
               {"only", "NAME", "every dataset", "run only this dataset", true},
               {"synthetic-seed", "N", std::to_string(synthetic.seed), "seed of the grown catalog"},
               {"synthetic-servers",
                "N",
                std::to_string(synthetic.servers),
                "servers of the grown enterprise catalog"},
               {"synthetic-tools",
                "N",
                std::to_string(synthetic.tools),
                "tools of the grown enterprise catalog"}}},
             {"search",
              {{"embedder", "SPEC", "static", "dense embedder, as for `scout --embedder`"},
               {"embedder-url", "URL", "", "with --embedder http, as for `scout`"},
               {"embedder-model", "NAME", "", "with --embedder http, as for `scout`"},
               {"embedder-dimensions", "N", "", "with --embedder http, as for `scout`"},
               {"top-k",
                "K",
                std::to_string(SearchOptions::kDefaultTopK),
                "the k of tool_search in the token table"}}},
             scout::cli::index_option_group(),
             {"output",
              {{"no-tokens", "", "", "skip the token table"},
               {"json", "", "", "machine-readable output"}}}}};
        return s;
    }();
    return spec;
}

struct QualityRow {
    std::string dataset;
    std::size_t tools = 0;
    Mode mode = Mode::hybrid;
    eval::Report report;
};

struct TokenTableRow {
    std::string catalog;
    std::string encoding;
    eval::TokenRow row;
};

bool read_size(const scout::cli::Args& args, const char* key, std::size_t& out) {
    auto text = args.get(key);
    if (!text) {
        return true;
    }
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), out);
    return ec == std::errc() && ptr == text->data() + text->size();
}

void print_quality(const std::vector<QualityRow>& rows) {
    std::printf("%-22s %6s %7s %-7s %6s %6s %6s %6s %6s %8s %8s %8s\n",
                "dataset",
                "tools",
                "queries",
                "mode",
                "H@1",
                "H@5",
                "MRR",
                "R@5",
                "nDCG@5",
                "p50 us",
                "p95 us",
                "p99 us");
    for (const QualityRow& q : rows) {
        const eval::Report& r = q.report;
        std::printf("%-22s %6zu %7zu %-7s %6.3f %6.3f %6.3f %6.3f %6.3f %8.1f %8.1f %8.1f%s\n",
                    q.dataset.c_str(),
                    q.tools,
                    r.evaluable,
                    std::string(mode_name(q.mode)).c_str(),
                    r.hit_at_1,
                    r.hit_at_5,
                    r.mrr,
                    r.recall_at_5,
                    r.ndcg_at_5,
                    r.p50_us,
                    r.p95_us,
                    r.p99_us,
                    r.degraded != 0 ? "  (degraded)" : "");
    }
}

void print_tokens(const std::vector<TokenTableRow>& rows, std::size_t top_k) {
    const std::string result_col = "result@" + std::to_string(top_k);
    std::printf("\n%-22s %-12s %7s %6s %12s %10s %10s %11s %10s\n",
                "catalog",
                "encoding",
                "servers",
                "tools",
                "tools/list",
                "meta defs",
                result_col.c_str(),
                "meta total",
                "reduction");
    for (const TokenTableRow& t : rows) {
        std::printf("%-22s %-12s %7zu %6zu %12zu %10zu %10.0f %11.0f %9.1f%%\n",
                    t.catalog.c_str(),
                    t.encoding.c_str(),
                    t.row.servers,
                    t.row.tools,
                    t.row.full_list,
                    t.row.meta_definitions,
                    t.row.mean_result,
                    t.row.meta_total(),
                    100.0 * t.row.reduction());
    }
}

nlohmann::json to_json(const std::vector<QualityRow>& quality,
                       const std::vector<TokenTableRow>& tokens,
                       const std::vector<std::string>& notes,
                       std::size_t top_k) {
    nlohmann::json q = nlohmann::json::array();
    for (const QualityRow& row : quality) {
        const eval::Report& r = row.report;
        q.push_back({{"dataset", row.dataset},
                     {"tools", row.tools},
                     {"mode", mode_name(row.mode)},
                     {"queries", r.queries},
                     {"evaluable", r.evaluable},
                     {"degraded", r.degraded},
                     {"errors", r.errors},
                     {"hit_at_1", r.hit_at_1},
                     {"hit_at_5", r.hit_at_5},
                     {"mrr", r.mrr},
                     {"recall_at_5", r.recall_at_5},
                     {"ndcg_at_5", r.ndcg_at_5},
                     {"latency_us", {{"p50", r.p50_us}, {"p95", r.p95_us}, {"p99", r.p99_us}}}});
    }
    nlohmann::json t = nlohmann::json::array();
    for (const TokenTableRow& row : tokens) {
        t.push_back({{"catalog", row.catalog},
                     {"encoding", row.encoding},
                     {"servers", row.row.servers},
                     {"tools", row.row.tools},
                     {"tools_list_tokens", row.row.full_list},
                     {"meta_definition_tokens", row.row.meta_definitions},
                     {"mean_search_result_tokens", row.row.mean_result},
                     {"top_k", top_k},
                     {"sampled_queries", row.row.sampled_queries},
                     {"meta_total_tokens", row.row.meta_total()},
                     {"reduction", row.row.reduction()}});
    }
    return {{"quality", q}, {"tokens", t}, {"notes", notes}};
}

int run(int argc, char** argv) {
    scout::cli::ParsedCommand parsed = scout::cli::parse_command(argc, argv, bench_spec(), 1);
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const scout::cli::Args* args = &*parsed.args;
    if (!args->positional().empty()) {
        return scout::cli::fail("scout-bench-eval takes no positional arguments");
    }
    const std::filesystem::path root = args->get("root").value_or(eval::source_root().string());
    const std::filesystem::path shared =
        args->get("datasets").value_or(eval::datasets_dir().string());
    eval::SyntheticOptions synthetic;
    std::size_t seed = synthetic.seed;
    std::size_t top_k = SearchOptions::kDefaultTopK;
    if (!read_size(*args, "synthetic-seed", seed) ||
        !read_size(*args, "synthetic-servers", synthetic.servers) ||
        !read_size(*args, "synthetic-tools", synthetic.tools) ||
        !read_size(*args, "top-k", top_k)) {
        return scout::cli::fail("numeric options need whole numbers");
    }
    synthetic.seed = seed;
    // The embedder and index settings come from the CLI's own factories and defaults, so the
    // benchmark measures exactly what `scout eval` would.
    auto embedder = scout::cli::make_embedder(*args);
    if (!embedder) {
        return scout::cli::fail(embedder.status().message());
    }
    auto catalog_options = scout::cli::index_options(*args);
    if (!catalog_options) {
        return scout::cli::fail(catalog_options.status().message());
    }
    auto list = bench::load_datasets(root, shared, synthetic);
    if (!list) {
        return scout::cli::fail(list.status().message());
    }
    const std::vector<std::string> only = args->all("only");

    std::vector<QualityRow> quality;
    std::vector<TokenTableRow> tokens;
    std::vector<std::string> notes = list->notes;
    notes.push_back("embedder: " + (embedder.value() ? embedder.value()->model_id()
                                                     : std::string("none (BM25 only)")));
    for (const bench::Dataset& d : list->datasets) {
        if (!only.empty() && std::find(only.begin(), only.end(), d.name) == only.end()) {
            continue;
        }
        auto catalog = Catalog::create(catalog_options.value(), embedder.value());
        if (!catalog) {
            return scout::cli::fail(catalog.status().message());
        }
        if (Status s = catalog->upsert_servers(d.catalog); !s.ok()) {
            notes.push_back(d.name + ": skipped: " + s.message());
            continue;
        }
        auto info = catalog->commit();
        if (!info) {
            return scout::cli::fail(d.name + ": " + info.status().message());
        }
        if (!info->dense_ready) {
            notes.push_back(d.name + ": dense branch unavailable: " + info->dense_error);
        }
        const Searcher searcher = catalog->searcher();
        for (Mode mode : {Mode::bm25, Mode::dense, Mode::hybrid}) {
            eval::Options eo;
            eo.search.mode = mode;
            eo.fetch_factor = catalog_options->fusion.fetch_factor;
            quality.push_back({d.name, info->tools, mode, eval::evaluate(searcher, d.queries, eo)});
        }
        if (args->has("no-tokens") || d.name.rfind("enterprise", 0) != 0) {
            continue;
        }
        std::vector<std::string> sample;
        for (const auto& q : d.queries) {
            sample.push_back(q.query);
        }
        SearchOptions so;
        so.top_k = top_k;
        for (TokenEncoding enc : {TokenEncoding::cl100k_base, TokenEncoding::o200k_base}) {
            auto counter = TokenCounter::load_default(enc);
            if (!counter) {
                notes.push_back("token table: " + counter.status().message());
                continue;
            }
            auto row = eval::measure_tokens(
                d.catalog, searcher, counter.value(), bench::meta_tools_list_json(), sample, so);
            if (!row) {
                return scout::cli::fail(row.status().message());
            }
            tokens.push_back({d.name, std::string(token_encoding_name(enc)), row.value()});
        }
    }
    if (args->has("json")) {
        std::cout << to_json(quality, tokens, notes, top_k).dump(2) << "\n";
        return 0;
    }
    print_quality(quality);
    if (!tokens.empty()) {
        print_tokens(tokens, top_k);
    }
    for (const std::string& n : notes) {
        std::printf("note: %s\n", n.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "scout-bench-eval: internal error: " << e.what() << "\n";
        return 1;
    }
}
