// learn_split.cpp: scout-bench-learn: learning from executions, by simulation. Each dataset's
// queries are split 50/50 by a hash of their id. The first half is replayed as an agent that
// searches (top 5, with the prior), executes the gold tool when it is among the hits and reports
// the success (Catalog::record_outcome). The second half is then searched with and without the
// prior: Hit@1 and Hit@5 of each, and, as a check, the second half before any replay.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scout/catalog.hpp"

#include "bench_args.hpp"
#include "datasets.hpp"
#include "eval/dataset_paths.hpp"
#include "util/hash.hpp"

namespace {

using namespace scout;

struct Quality {
    double hit1 = 0;
    double hit5 = 0;
};

struct Row {
    std::string dataset;
    std::size_t train = 0;
    std::size_t test = 0;
    std::size_t recorded = 0;
    Quality before;   ///< test half, nothing recorded (must equal `without`)
    Quality without;  ///< test half after the replay, prior off
    Quality with;     ///< test half after the replay, prior on
};

bool is_gold(const Hit& h, const eval::LabelledQuery& q) {
    return std::any_of(q.relevant.begin(), q.relevant.end(), [&](const ToolKey& k) {
        return k.server == h.server && k.tool == h.tool;
    });
}

Quality measure(const Catalog& catalog,
                const std::vector<const eval::LabelledQuery*>& queries,
                bool prior) {
    Quality q;
    const Searcher searcher = catalog.searcher();
    for (const eval::LabelledQuery* lq : queries) {
        auto r = searcher.search(lq->query, {.top_k = 5, .outcome_prior = prior});
        if (!r) {
            continue;
        }
        for (std::size_t i = 0; i < r->hits.size(); ++i) {
            if (is_gold(r->hits[i], *lq)) {
                q.hit1 += i == 0 ? 1 : 0;
                q.hit5 += 1;
                break;
            }
        }
    }
    const double n = queries.empty() ? 1.0 : static_cast<double>(queries.size());
    return {q.hit1 / n, q.hit5 / n};
}

std::optional<Row> run(const bench::Dataset& d, const std::shared_ptr<Embedder>& embedder) {
    auto catalog = Catalog::create({}, embedder);
    if (!catalog || !catalog->upsert_servers(d.catalog).ok() || !catalog->commit()) {
        return std::nullopt;
    }
    std::vector<const eval::LabelledQuery*> queries;
    for (const eval::LabelledQuery& q : d.queries) {
        if (!q.relevant.empty()) {
            queries.push_back(&q);
        }
    }
    // 50/50 by id: order by a hash of the id (stable, unrelated to the file order), cut in two.
    std::sort(queries.begin(), queries.end(), [](const auto* a, const auto* b) {
        const std::uint64_t ha = detail::fnv1a(a->id);
        const std::uint64_t hb = detail::fnv1a(b->id);
        return ha != hb ? ha < hb : a->id < b->id;
    });
    const std::size_t half = queries.size() / 2;
    const std::vector<const eval::LabelledQuery*> train(
        queries.begin(), queries.begin() + static_cast<std::ptrdiff_t>(half));
    const std::vector<const eval::LabelledQuery*> test(
        queries.begin() + static_cast<std::ptrdiff_t>(half), queries.end());
    Row row;
    row.dataset = d.name;
    row.train = train.size();
    row.test = test.size();
    row.before = measure(*catalog, test, false);
    for (const eval::LabelledQuery* q : train) {
        auto r = catalog->searcher().search(q->query, {.top_k = 5, .outcome_prior = true});
        if (!r) {
            continue;
        }
        for (const Hit& h : r->hits) {
            if (is_gold(h, *q)) {
                row.recorded +=
                    catalog->record_outcome(q->query, {h.server, h.tool}, Outcome::success).ok();
                break;
            }
        }
    }
    row.without = measure(*catalog, test, false);
    row.with = measure(*catalog, test, true);
    return row;
}

int run(int argc, char** argv) {
    std::filesystem::path shared = eval::datasets_dir();
    std::vector<std::string> only;
    std::string embedder_name = "static";
    std::string json_path;
    const args::CommandSpec command{
        "scout-bench-learn",
        "",
        "Hit@1 and Hit@5 with and without the outcome prior, learned on half of each dataset's "
        "queries and measured on the other half.",
        {{"options",
          {bench::datasets_option(shared),
           {"only",
            "NAME",
            "",
            "measure only this dataset",
            true,
            [&](const std::string& v) { return (only.push_back(v), std::string()); }},
           bench::embedder_option(embedder_name),
           {"json",
            "FILE",
            "",
            "also write the rows as JSON (for scripts/figures.sh)",
            false,
            [&](const std::string& v) { return (json_path = v, std::string()); }}}}}};
    int exit_code = 0;
    if (!bench::parse_args(argc, argv, command, exit_code)) {
        return exit_code;
    }
    auto made = bench::make_embedder(embedder_name);
    if (!made) {
        std::fprintf(stderr, "scout-bench-learn: %s\n", made.status().message().c_str());
        return 1;
    }
    const std::shared_ptr<Embedder> embedder = made.value();
    auto list = bench::load_datasets(eval::source_root(), shared, eval::SyntheticOptions{});
    if (!list) {
        std::fprintf(stderr, "scout-bench-learn: %s\n", list.status().message().c_str());
        return 1;
    }
    nlohmann::json rows = nlohmann::json::array();
    std::printf("%-22s %6s %6s %8s | %-13s | %-13s | %-13s\n",
                "dataset",
                "train",
                "test",
                "recorded",
                "before H@1/H@5",
                "prior off",
                "prior on");
    for (const bench::Dataset& d : list->datasets) {
        if (d.name == "enterprise+synthetic" ||
            (!only.empty() && std::find(only.begin(), only.end(), d.name) == only.end())) {
            continue;
        }
        const std::optional<Row> row = run(d, embedder);
        if (!row) {
            std::fprintf(stderr, "scout-bench-learn: %s: cannot index\n", d.name.c_str());
            continue;
        }
        std::printf("%-22s %6zu %6zu %8zu | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f\n",
                    row->dataset.c_str(),
                    row->train,
                    row->test,
                    row->recorded,
                    row->before.hit1,
                    row->before.hit5,
                    row->without.hit1,
                    row->without.hit5,
                    row->with.hit1,
                    row->with.hit5);
        rows.push_back({{"dataset", row->dataset},
                        {"train", row->train},
                        {"test", row->test},
                        {"recorded", row->recorded},
                        {"hit1_before", row->before.hit1},
                        {"hit1_without", row->without.hit1},
                        {"hit1_with", row->with.hit1},
                        {"hit5_without", row->without.hit5},
                        {"hit5_with", row->with.hit5}});
    }
    for (const std::string& note : list->notes) {
        std::printf("note: %s\n", note.c_str());
    }
    if (!json_path.empty()) {
        std::FILE* f = std::fopen(json_path.c_str(), "w");
        if (f == nullptr) {
            std::fprintf(stderr, "scout-bench-learn: cannot write %s\n", json_path.c_str());
            return 1;
        }
        std::fputs(rows.dump(2).c_str(), f);
        std::fputs("\n", f);
        std::fclose(f);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {  // a dataset file that is not the expected JSON
        std::fprintf(stderr, "scout-bench-learn: %s\n", e.what());
        return 1;
    }
}
