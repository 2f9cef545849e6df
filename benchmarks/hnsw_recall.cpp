// hnsw_recall.cpp: scout-bench-recall: recall@10 of scout's HNSW graph against the exact fp32
// scan, on vectors of real tool text, by graph size and search width. Uniform random vectors
// are the worst case of any graph (recall 0.28 at 20,000 points) and say little about tool
// catalogs, and no public catalog has more than about 10,000 tools, so the corpus recombines
// real ones: each text is a tool's name and first sentence, a sentence of a second tool and the
// parameter names of a third, all drawn from the public catalogs (merged and toolgym_smithery).
// `--texts scoped` draws one tool per text and appends a team and a region instead, the near
// duplicates that `scout synth` makes. The queries are merged/queries.json, embedded by the
// shipped static model like the corpus.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"

#include "bench_args.hpp"
#include "dense/dense_index.hpp"
#include "eval/dataset_paths.hpp"
#include "eval/evaluation.hpp"
#include "util/thread_pool.hpp"

namespace {

using namespace scout;
using Clock = std::chrono::steady_clock;

struct Config {
    std::vector<std::size_t> sizes{20000, 100000};
    std::vector<std::size_t> widths{64, 128, 256, 512};
    bool scoped = false;
    std::size_t queries = 1000;
    std::size_t threads = 2;
    std::filesystem::path datasets;
    bool json = false;
};

struct SourceTool {
    std::string name;
    std::vector<std::string> sentences;
    std::string parameters;
};

std::vector<std::size_t> parse_list(std::string_view text) {
    std::vector<std::size_t> out;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        std::size_t value = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (ec != std::errc{} || end != item.data() + item.size() || value == 0) {
            return {};
        }
        out.push_back(value);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    return out;
}

/// The sentences of every tool description in the catalog (split at ". "), and its tools'
/// parameter names.
void add_sources(const CatalogSpec& spec, std::vector<SourceTool>& out) {
    for (const ServerSpec& server : spec.servers) {
        for (const ToolSpec& tool : server.tools) {
            SourceTool source{tool.name, {}, {}};
            std::string_view rest = tool.description;
            while (!rest.empty()) {
                const std::size_t end = std::min(rest.find(". "), rest.size());
                if (end > 10) {
                    source.sentences.emplace_back(rest.substr(0, end));
                }
                rest.remove_prefix(std::min(end + 2, rest.size()));
            }
            const auto schema = nlohmann::json::parse(tool.input_schema, nullptr, false);
            if (schema.is_object() && schema.contains("properties") &&
                schema["properties"].is_object()) {
                for (const auto& [key, value] : schema["properties"].items()) {
                    source.parameters += key + ' ';
                }
            }
            if (!source.sentences.empty()) {
                out.push_back(std::move(source));
            }
        }
    }
}

std::vector<std::string> make_texts(const std::vector<SourceTool>& tools,
                                    std::size_t n,
                                    bool scoped) {
    std::mt19937_64 rng(7);
    const auto pick = [&]() -> const SourceTool& { return tools[rng() % tools.size()]; };
    std::vector<std::string> texts(n);
    for (std::string& text : texts) {
        const SourceTool& a = pick();
        if (scoped) {
            text = a.name + ' ' + a.sentences[0] + ". Scoped to team " +
                   std::to_string(rng() % 12) + " in region " + std::to_string(rng() % 8) + '.';
            continue;
        }
        const SourceTool& b = pick();
        const SourceTool& c = pick();
        text = a.name + ' ' + a.sentences[0] + ". " + b.sentences[rng() % b.sentences.size()] +
               ". " + c.parameters;
    }
    return texts;
}

/// The texts' unit vectors, embedded in batches, with progress on stderr.
Result<std::shared_ptr<detail::VectorStore>> embed_all(Embedder& embedder,
                                                       const std::vector<std::string>& texts,
                                                       bool progress) {
    const std::size_t dim = embedder.dim();
    detail::PodVector<float> rows;
    rows.reserve(texts.size() * dim);
    constexpr std::size_t kBatch = 8192;
    for (std::size_t i = 0; i < texts.size(); i += kBatch) {
        const std::size_t count = std::min(kBatch, texts.size() - i);
        auto vectors = embedder.embed(std::span(texts.data() + i, count));
        if (!vectors) {
            return vectors.status();
        }
        rows.insert(rows.end(), vectors->begin(), vectors->end());
        if (progress) {
            std::fprintf(stderr, "\rembedding %zu / %zu", i + count, texts.size());
        }
    }
    if (progress) {
        std::fputc('\n', stderr);
    }
    for (std::size_t i = 0; i < rows.size() / dim; ++i) {
        (void)detail::normalize(rows.data() + i * dim, dim);
    }
    return std::make_shared<detail::VectorStore>(dim, std::move(rows));
}

struct WidthRow {
    std::size_t width = 0;
    bool chosen = false;  ///< the width the default options choose at this size
    double recall = 0;
    double p50_us = 0;
    double p95_us = 0;
};

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0
                     : v[std::min(v.size() - 1,
                                  static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

int run(const Config& cfg) {
    if (!std::filesystem::is_directory(cfg.datasets / "merged")) {
        std::fprintf(stderr,
                     "scout-bench-recall: datasets not found under %s (set --datasets or "
                     "SCOUT_DATASETS)\n",
                     cfg.datasets.string().c_str());
        return 1;
    }
    std::vector<SourceTool> tools;
    for (const char* name : {"merged", "toolgym_smithery"}) {
        auto spec = load_catalog_file((cfg.datasets / name / "catalog.json").string());
        if (!spec) {
            std::fprintf(stderr, "%s: %s\n", name, spec.status().message().c_str());
            return 1;
        }
        add_sources(*spec, tools);
    }
    auto labelled = eval::load_queries(cfg.datasets / "merged" / "queries.json");
    if (!labelled || tools.empty()) {
        std::fprintf(stderr, "merged/queries.json: unreadable, or no source tools\n");
        return 1;
    }
    std::vector<std::string> queries;
    for (const auto& q : *labelled) {
        if (queries.size() < cfg.queries) {
            queries.push_back(q.query);
        }
    }
    auto embedder = StaticEmbedder::load_default();
    if (!embedder) {
        std::fprintf(stderr, "static model: %s\n", embedder.status().message().c_str());
        return 1;
    }
    if (!cfg.json) {
        std::printf("%zu source tools, %zu queries, %s texts, %zu-d\n",
                    tools.size(),
                    queries.size(),
                    cfg.scoped ? "scoped" : "mixed",
                    (*embedder)->dim());
        std::printf(
            "| points | build s (wall, %zu threads) | exact ms/query | width | recall@10 | "
            "p50 us | p95 us |\n|---:|---:|---:|---:|---:|---:|---:|\n",
            cfg.threads);
    }
    detail::ThreadPool pool(cfg.threads);
    for (const std::size_t n : cfg.sizes) {
        const std::vector<std::string> texts = make_texts(tools, n, cfg.scoped);
        (*embedder)->fit(texts);  // the catalog's IDF, as a commit fits it
        auto store = embed_all(**embedder, texts, !cfg.json);
        auto query_store = embed_all(**embedder, queries, false);
        if (!store || !query_store) {
            std::fprintf(stderr, "embedding failed\n");
            return 1;
        }
        const detail::VectorStore& q = **query_store;
        std::vector<std::vector<detail::ScoredDoc>> truth(q.size());
        auto start = Clock::now();
        for (std::size_t i = 0; i < q.size(); ++i) {
            detail::exact_search(**store, q.row(i), 10, nullptr, truth[i]);
        }
        const double exact_ms =
            std::chrono::duration<double, std::milli>(Clock::now() - start).count() /
            static_cast<double>(q.size());
        DenseOptions options;
        start = Clock::now();
        const std::string graph = detail::make_hnsw_index(*store, options, &pool)->graph_bytes();
        const double build_s = std::chrono::duration<double>(Clock::now() - start).count();
        std::vector<std::size_t> widths = cfg.widths;
        const std::size_t chosen = detail::hnsw_search_width(options, n);
        widths.push_back(chosen);
        std::sort(widths.begin(), widths.end());
        widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
        std::vector<WidthRow> rows;
        for (const std::size_t width : widths) {
            DenseOptions fixed = options;
            fixed.hnsw_ef_search = width;
            fixed.hnsw_ef_base_tools = 0;
            const auto index = detail::load_hnsw_index(
                *store,
                fixed,
                std::span(reinterpret_cast<const std::uint8_t*>(graph.data()), graph.size()));
            std::vector<double> times;
            std::size_t found = 0;
            std::vector<detail::ScoredDoc> hits;
            for (std::size_t i = 0; i < q.size(); ++i) {
                const auto t0 = Clock::now();
                index->search(q.row(i), 10, nullptr, hits);
                times.push_back(
                    std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
                std::set<ToolId> exact;
                for (const auto& d : truth[i]) {
                    exact.insert(d.id);
                }
                for (const auto& d : hits) {
                    found += exact.count(d.id);
                }
            }
            rows.push_back({width,
                            width == chosen,
                            static_cast<double>(found) / (10.0 * static_cast<double>(q.size())),
                            percentile(times, 0.5),
                            percentile(times, 0.95)});
        }
        if (cfg.json) {
            nlohmann::json out{{"points", n},
                               {"texts", cfg.scoped ? "scoped" : "mixed"},
                               {"build_s", build_s},
                               {"threads", cfg.threads},
                               {"exact_ms", exact_ms},
                               {"widths", nlohmann::json::array()}};
            for (const WidthRow& r : rows) {
                out["widths"].push_back({{"width", r.width},
                                         {"default", r.chosen},
                                         {"recall_at_10", r.recall},
                                         {"p50_us", r.p50_us},
                                         {"p95_us", r.p95_us}});
            }
            std::printf("%s\n", out.dump().c_str());
        } else {
            for (const WidthRow& r : rows) {
                std::printf("| %zu | %.1f | %.2f | %zu%s | %.4f | %.0f | %.0f |\n",
                            n,
                            build_s,
                            exact_ms,
                            r.width,
                            r.chosen ? " (default)" : "",
                            r.recall,
                            r.p50_us,
                            r.p95_us);
            }
        }
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) try {
    Config cfg;
    cfg.datasets = eval::datasets_dir();
    const auto list_into = [](std::vector<std::size_t>& out) {
        return [&out](const std::string& v) {
            out = parse_list(v);
            return out.empty() ? std::string("wants positive whole numbers, comma-separated")
                               : std::string();
        };
    };
    const args::CommandSpec command{
        "scout-bench-recall",
        "",
        "Recall@10 of the HNSW graph against the exact scan, by graph size and search width, on "
        "vectors of recombined real tool text.",
        {{"options",
          {{"sizes", "N,...", "20000,100000", "graph sizes (points)", false, list_into(cfg.sizes)},
           {"texts",
            "mixed|scoped",
            "mixed",
            "mixed: three real tools recombined per text; scoped: one tool per text with a team "
            "and a region appended",
            false,
            [&](const std::string& v) {
                cfg.scoped = v == "scoped";
                return v == "mixed" || v == "scoped" ? std::string()
                                                     : std::string("must be mixed or scoped");
            }},
           {"widths",
            "N,...",
            "64,128,256,512",
            "search widths to sweep, plus the width the default options choose at each size",
            false,
            list_into(cfg.widths)},
           {"queries",
            "N",
            std::to_string(cfg.queries),
            "queries from merged/queries.json",
            false,
            bench::whole_into(cfg.queries, 1, 10000000)},
           {"threads",
            "N",
            std::to_string(cfg.threads),
            "threads that build the graph",
            false,
            bench::whole_into(cfg.threads, 1, 1024)},
           bench::datasets_option(cfg.datasets),
           {"json",
            "",
            "",
            "one JSON object per size on stdout instead of the table",
            false,
            [&](const std::string&) { return (cfg.json = true, std::string()); }}}}},
        "A size of 1,000,000 needs about 2.5 GB and several minutes.\n"};
    int exit_code = 0;
    if (!bench::parse_args(argc, argv, command, exit_code)) {
        return exit_code;
    }
    return run(cfg);
} catch (const std::exception& e) {
    std::fprintf(stderr, "scout-bench-recall: %s\n", e.what());
    return 1;
}
