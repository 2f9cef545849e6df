// search_digest.cpp: scout-bench-digest: a digest of every hit a search returns, over every
// query of the public datasets, in BM25 mode (default signals and every signal off), dense mode
// and the default hybrid, at several top_k. A change meant to make the search faster without
// changing its results must leave every digest as it was: each one hashes, query by query, the
// returned ids, the bits of every score and the ranks. `--time` times the same searches instead
// (query vectors embedded beforehand), for before/after runs and profiles of the whole path.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"
#include "scout/searcher.hpp"

#include "bench_args.hpp"
#include "eval/dataset_paths.hpp"
#include "eval/evaluation.hpp"

namespace {

using namespace scout;
using Clock = std::chrono::steady_clock;

struct Config {
    std::filesystem::path datasets = eval::datasets_dir();
    std::vector<std::string> only{
        "mcpzero", "merged", "azure_mcp", "livemcpbench", "mcptoolbench_pp", "enterprise"};
    std::vector<std::string> modes{"bm25", "plain", "dense", "hybrid"};
    std::vector<std::size_t> ks{1, 5, 10};
    std::string expect;
    std::size_t time_passes = 0;
};

std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t comma = std::min(s.find(',', start), s.size());
        if (comma > start) {
            out.emplace_back(s.substr(start, comma - start));
        }
        start = comma + 1;
    }
    return out;
}

/// The options into `cfg`; nullopt after --help or an error, with the exit code in `exit_code`.
std::optional<Config> parse_config(int argc, char** argv, int& exit_code) {
    Config cfg;
    const auto list_into = [](std::vector<std::string>& out) {
        return [&out](const std::string& v) {
            out = split_list(v);
            return out.empty() ? std::string("wants a comma-separated list") : std::string();
        };
    };
    const args::CommandSpec command{
        "scout-bench-digest",
        "",
        "A digest of every hit of every query of the public datasets, per mode and top_k; or, "
        "with --time, the time of the same searches.",
        {{"options",
          {bench::datasets_option(cfg.datasets),
           {"only",
            "a,b",
            "mcpzero,merged,azure_mcp,livemcpbench,mcptoolbench_pp,enterprise",
            "datasets to run; enterprise is data/'s catalog and queries-49.json",
            false,
            list_into(cfg.only)},
           {"modes",
            "m,n",
            "bm25,plain,dense,hybrid",
            "of bm25 (default signals), plain (BM25 mode, every signal off), dense, hybrid",
            false,
            [&](const std::string& v) {
                cfg.modes = split_list(v);
                for (const std::string& m : cfg.modes) {
                    if (m != "bm25" && m != "plain" && m != "dense" && m != "hybrid") {
                        return "unknown mode " + m;
                    }
                }
                return cfg.modes.empty() ? std::string("lists no mode") : std::string();
            }},
           {"ks",
            "1,5,10",
            "1,5,10",
            "top_k values",
            false,
            [&](const std::string& v) {
                cfg.ks.clear();
                for (const std::string& k : split_list(v)) {
                    std::size_t top_k = 0;
                    if (std::string why = args::read_whole_into(k, 1, 1000, top_k); !why.empty()) {
                        return "each top_k " + why;
                    }
                    cfg.ks.push_back(top_k);
                }
                return cfg.ks.empty() ? std::string("lists no top_k") : std::string();
            }},
           {"expect",
            "FILE",
            "",
            "compare with a previous run's output: exit 1 when any digest differs",
            false,
            [&](const std::string& v) { return (cfg.expect = v, std::string()); }},
           {"time",
            "PASSES",
            "",
            "time the searches instead (top_k = the last of --ks; dense and hybrid are given "
            "their query vectors, embedded beforehand): p50 / p99 per pass",
            false,
            bench::whole_into(cfg.time_passes, 1, 100000)}}}},
        "Prints one line per dataset, mode and top_k: `digest <dataset> <mode> k=<k> <queries> "
        "<hex>`.\n"};
    if (!bench::parse_args(argc, argv, command, exit_code)) {
        return std::nullopt;
    }
    return cfg;
}

/// FNV-1a, 64 bits.
struct Digest {
    std::uint64_t h = 14695981039346656037ULL;
    void bytes(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i) {
            h = (h ^ b[i]) * 1099511628211ULL;
        }
    }
    template <class T>
    void value(T v) {
        bytes(&v, sizeof v);
    }
};

void add_result(Digest& d, std::size_t q, const Result<SearchResult>& r) {
    d.value<std::uint64_t>(q);
    if (!r) {
        d.value<std::uint32_t>(0xFFFFFFFFU);
        d.bytes(r.status().message().data(), r.status().message().size());
        return;
    }
    d.value<std::uint32_t>(static_cast<std::uint32_t>(r->hits.size()));
    d.value<std::uint8_t>(static_cast<std::uint8_t>(r->mode));
    for (const Hit& h : r->hits) {
        d.value(h.id);
        for (const float f : {h.score, h.bm25_score, h.dense_score}) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, &f, sizeof bits);
            d.value(bits);
        }
        d.value(h.bm25_rank);
        d.value(h.dense_rank);
    }
}

ExpansionOptions signals_off() {
    ExpansionOptions e;
    e.lexicon = false;
    e.weight = 0.0f;
    e.neighbours = 0;
    e.action_weight = 0.0f;
    e.action_boost = 0.0f;
    e.compound_weight = 0.0f;
    e.pair_weight = 0.0f;
    return e;
}

/// A catalog of `spec` with the default options (every signal off when `plain`) and, when
/// `embedder` is given, the shipped static model (loaded into it); its searcher.
Searcher build(const CatalogSpec& spec, bool plain, std::shared_ptr<Embedder>* embedder) {
    CatalogOptions options;
    if (plain) {
        options.expansion = signals_off();
    }
    std::shared_ptr<Embedder> model;
    if (embedder != nullptr) {
        auto loaded = StaticEmbedder::load_default();
        if (!loaded) {
            throw std::runtime_error("no static model: " + loaded.status().to_string());
        }
        model = *loaded;
        *embedder = model;
    }
    auto catalog = Catalog::create(options, model);
    if (!catalog || !catalog->upsert_servers(spec).ok() || !catalog->commit()) {
        throw std::runtime_error("catalog setup failed");
    }
    return catalog->searcher();  // pins the snapshot: outlives the catalog
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) {
        return 0.0;
    }
    const auto i = static_cast<std::size_t>(std::llround(p * static_cast<double>(v.size() - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
    return v[i];
}

/// The queries' vectors from `embedder`, fitted to the catalog by its commit.
std::vector<std::vector<float>> query_vectors(Embedder& embedder,
                                              const std::vector<eval::LabelledQuery>& queries) {
    std::vector<std::vector<float>> out;
    out.reserve(queries.size());
    for (const eval::LabelledQuery& q : queries) {
        auto v = embedder.embed(std::span<const std::string>(&q.query, 1));
        if (!v) {
            throw std::runtime_error("query embedding failed");
        }
        out.push_back(std::move(*v));
    }
    return out;
}
/// "digest <dataset> <mode> k=<k>": the part of a digest line that names what it digests.
std::string digest_key(const std::string& tag,
                       const std::string& dataset,
                       const std::string& mode,
                       const std::string& k) {
    std::string key = tag;
    for (const std::string* part : {&dataset, &mode, &k}) {
        key += ' ';
        key += *part;
    }
    return key;
}

int run(const Config& cfg) {
    std::vector<std::string> lines;
    for (const std::string& name : cfg.only) {
        // "enterprise" is the bundled catalog and data/queries-49.json.
        const bool bundled = name == "enterprise";
        const std::filesystem::path dir =
            bundled ? eval::source_root() / "data" : cfg.datasets / name;
        auto spec = load_catalog_file(dir / (bundled ? "enterprise_catalog.json" : "catalog.json"));
        auto queries = eval::load_queries(dir / (bundled ? "queries-49.json" : "queries.json"));
        if (!spec || !queries) {
            std::fprintf(stderr,
                         "%s: datasets not found (%s)\n",
                         name.c_str(),
                         (spec ? queries.status() : spec.status()).to_string().c_str());
            return 2;
        }
        const bool needs_dense = std::any_of(cfg.modes.begin(), cfg.modes.end(), [](auto& m) {
            return m == "dense" || m == "hybrid";
        });
        std::optional<Searcher> full;
        std::optional<Searcher> plain;
        std::vector<std::vector<float>> vectors;
        std::shared_ptr<Embedder> embedder;
        if (needs_dense ||
            std::find(cfg.modes.begin(), cfg.modes.end(), "bm25") != cfg.modes.end()) {
            full = build(*spec, false, needs_dense ? &embedder : nullptr);
        }
        if (std::find(cfg.modes.begin(), cfg.modes.end(), "plain") != cfg.modes.end()) {
            plain = build(*spec, true, nullptr);
        }
        if (cfg.time_passes > 0 && embedder) {
            vectors = query_vectors(*embedder, *queries);
        }
        for (const std::string& mode : cfg.modes) {
            const Searcher& searcher = mode == "plain" ? *plain : *full;
            SearchOptions so;
            so.mode = mode == "dense" ? Mode::dense : mode == "hybrid" ? Mode::hybrid : Mode::bm25;
            if (cfg.time_passes > 0) {
                so.top_k = cfg.ks.back();
                for (std::size_t pass = 0; pass < cfg.time_passes; ++pass) {
                    std::vector<double> us;
                    us.reserve(queries->size());
                    std::size_t failed = 0;  // e.g. a query over the size limit: timed all the same
                    for (std::size_t q = 0; q < queries->size(); ++q) {
                        const auto t0 = Clock::now();
                        const auto r =
                            vectors.empty() || so.mode == Mode::bm25
                                ? searcher.search((*queries)[q].query, so)
                                : searcher.search(
                                      (*queries)[q].query, std::span<const float>(vectors[q]), so);
                        us.push_back(
                            std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
                        failed += r ? 0U : 1U;
                    }
                    std::printf("time %s %s k=%zu pass %zu: p50 %.2f us, p99 %.2f us, %zu failed\n",
                                name.c_str(),
                                mode.c_str(),
                                so.top_k,
                                pass + 1,
                                percentile(us, 0.50),
                                percentile(us, 0.99),
                                failed);
                    std::fflush(stdout);
                }
                continue;
            }
            for (const std::size_t k : cfg.ks) {
                so.top_k = k;
                Digest d;
                for (std::size_t q = 0; q < queries->size(); ++q) {
                    add_result(d, q, searcher.search((*queries)[q].query, so));
                }
                char line[256];
                std::snprintf(line,
                              sizeof line,
                              "digest %s %s k=%zu %zu %016llx",
                              name.c_str(),
                              mode.c_str(),
                              k,
                              queries->size(),
                              static_cast<unsigned long long>(d.h));
                std::puts(line);
                std::fflush(stdout);
                lines.emplace_back(line);
            }
        }
    }
    if (cfg.expect.empty()) {
        return 0;
    }
    std::ifstream in(cfg.expect);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", cfg.expect.c_str());
        return 2;
    }
    std::map<std::string, std::string> expected;  // "digest <dataset> <mode> k=<k>" -> rest
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string tag, dataset, mode, k, rest;
        if (words >> tag >> dataset >> mode >> k && tag == "digest" && std::getline(words, rest)) {
            expected[digest_key(tag, dataset, mode, k)] = rest;
        }
    }
    std::size_t differ = 0;
    std::size_t compared = 0;
    for (const std::string& line : lines) {
        std::istringstream words(line);
        std::string tag, dataset, mode, k, rest;
        words >> tag >> dataset >> mode >> k;
        std::getline(words, rest);
        const auto it = expected.find(digest_key(tag, dataset, mode, k));
        if (it == expected.end()) {
            continue;
        }
        ++compared;
        if (it->second != rest) {
            ++differ;
            std::printf("DIFFERS: %s (expected%s)\n", line.c_str(), it->second.c_str());
        }
    }
    std::printf("%zu of %zu digests compared differ\n", differ, compared);
    return differ == 0 && compared > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        int exit_code = 0;
        const std::optional<Config> cfg = parse_config(argc, argv, exit_code);
        return cfg ? run(*cfg) : exit_code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "scout-bench-digest: %s\n", e.what());
        return 2;
    }
}
