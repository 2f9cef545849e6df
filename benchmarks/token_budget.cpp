// token_budget.cpp: scout-bench-budget: what a tool_search answer costs the model against what it
// finds. Runs every labelled query of a catalog through the tool_search meta-tool, without a
// budget (top_k 5) and at token budgets (top_k then up to 20, as many as fit), and reports the
// mean tokens of the answer text (the real BPE count) and Hit@1 / Hit@5 / Hit@returned.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/mcp/meta_tools.hpp"
#include "scout/token_counter.hpp"

#include "bench_args.hpp"
#include "eval/dataset_paths.hpp"
#include "eval/evaluation.hpp"

namespace {

using namespace scout;

struct Row {
    std::size_t budget = 0;  ///< 0: no budget, top_k 5
    double tokens = 0;
    double returned = 0;
    double trimmed = 0;  ///< matches with something trimmed, per answer
    double hit1 = 0;
    double hit5 = 0;
    double hit_all = 0;
};

bool relevant(const mcp::Json& match, const std::vector<ToolKey>& gold) {
    for (const ToolKey& k : gold) {
        if (match["server"] == k.server && match["tool"] == k.tool) {
            return true;
        }
    }
    return false;
}

Row run(const mcp::MetaTools& meta,
        const Searcher& searcher,
        const TokenCounter& counter,
        const std::vector<eval::LabelledQuery>& queries,
        std::size_t budget) {
    Row row;
    row.budget = budget;
    std::size_t n = 0;
    for (const eval::LabelledQuery& q : queries) {
        if (q.relevant.empty()) {
            continue;
        }
        mcp::Json args{{"query", q.query}};
        if (budget != 0) {
            args["max_tokens"] = budget;
        }
        const mcp::Json r = meta.tool_search(searcher, args);
        const mcp::Json& matches = r["structuredContent"]["matches"];
        ++n;
        row.tokens +=
            static_cast<double>(counter.count(r["content"][0]["text"].get<std::string>()));
        row.returned += static_cast<double>(matches.size());
        bool found = false;
        for (std::size_t i = 0; i < matches.size(); ++i) {
            row.trimmed += matches[i].contains("trimmed") ? 1 : 0;
            if (!found && relevant(matches[i], q.relevant)) {
                found = true;
                row.hit1 += i < 1 ? 1 : 0;
                row.hit5 += i < 5 ? 1 : 0;
                row.hit_all += 1;
            }
        }
    }
    const double d = n ? static_cast<double>(n) : 1.0;
    for (double* v :
         {&row.tokens, &row.returned, &row.trimmed, &row.hit1, &row.hit5, &row.hit_all}) {
        *v /= d;
    }
    return row;
}

std::optional<std::vector<std::size_t>> parse_budgets(const std::string& text) {
    std::vector<std::size_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, end - start);
        char* rest = nullptr;
        const unsigned long long v = std::strtoull(part.c_str(), &rest, 10);
        if (part.empty() || *rest != '\0' || v == 0) {
            return std::nullopt;
        }
        out.push_back(static_cast<std::size_t>(v));
        start = end + 1;
    }
    return out;
}

int run(int argc, char** argv) {
    const auto root = eval::source_root();
    std::string catalog_path = (root / "data/enterprise_catalog.json").string();
    std::string queries_path = (root / "data/queries-49.json").string();
    std::string encoding_name = "cl100k_base";
    std::vector<std::size_t> budgets{500, 1000, 2000};
    const args::CommandSpec command{
        "scout-bench-budget",
        "",
        "Answer tokens of tool_search against what it finds, with and without token budgets.",
        {{"options",
          {{"catalog",
            "FILE",
            "data/enterprise_catalog.json",
            "the catalog",
            false,
            [&](const std::string& v) { return (catalog_path = v, std::string()); }},
           {"queries",
            "FILE",
            "data/queries-49.json",
            "its labelled queries",
            false,
            [&](const std::string& v) { return (queries_path = v, std::string()); }},
           {"encoding",
            "NAME",
            encoding_name,
            "the token encoding (cl100k_base, o200k_base)",
            false,
            [&](const std::string& v) { return (encoding_name = v, std::string()); }},
           {"budgets",
            "N,...",
            "500,1000,2000",
            "token budgets to measure beside the unbudgeted answer",
            false,
            [&](const std::string& v) {
                auto parsed = parse_budgets(v);
                if (!parsed) {
                    return std::string("wants positive whole numbers, comma-separated");
                }
                budgets = *parsed;
                return std::string();
            }}}}}};
    int exit_code = 0;
    if (!bench::parse_args(argc, argv, command, exit_code)) {
        return exit_code;
    }
    const auto encoding = parse_token_encoding(encoding_name);
    if (!encoding) {
        std::fprintf(stderr, "scout-bench-budget: unknown encoding %s\n", encoding_name.c_str());
        return 2;
    }
    auto counter = TokenCounter::load_default(*encoding);
    auto spec = load_catalog_file(catalog_path);
    auto queries = eval::load_queries(queries_path);
    if (!counter || !spec || !queries) {
        std::fprintf(stderr,
                     "scout-bench-budget: %s\n",
                     (!counter ? counter.status()
                      : !spec  ? spec.status()
                               : queries.status())
                         .message()
                         .c_str());
        return 2;
    }
    std::shared_ptr<Embedder> embedder;
    if (auto model = StaticEmbedder::load_default()) {
        embedder = model.value();
    } else {
        std::fprintf(stderr, "note: %s; BM25 only\n", model.status().message().c_str());
    }
    auto catalog = Catalog::create({}, embedder);
    if (!catalog || !catalog->upsert_servers(spec.value()).ok() || !catalog->commit()) {
        std::fprintf(stderr, "scout-bench-budget: cannot index %s\n", catalog_path.c_str());
        return 1;
    }
    mcp::Connector connector;
    connector.token_counter = std::make_shared<const TokenCounter>(std::move(counter.value()));
    const mcp::MetaTools meta(connector);
    const Searcher searcher = catalog->searcher();

    std::printf("catalog: %s (%zu tools), %s, mode hybrid%s\n",
                catalog_path.c_str(),
                searcher.size(),
                encoding_name.c_str(),
                searcher.has_dense() ? "" : " (BM25 only)");
    std::printf("%-22s %8s %9s %8s %6s %6s %9s\n",
                "budget",
                "tokens",
                "returned",
                "trimmed",
                "H@1",
                "H@5",
                "H@ret");
    std::vector<std::size_t> all{0};
    all.insert(all.end(), budgets.begin(), budgets.end());
    for (std::size_t budget : all) {
        const Row r = run(meta, searcher, *connector.token_counter, queries.value(), budget);
        const std::string label =
            budget == 0 ? std::string("none (top_k 5)") : std::to_string(budget) + " (top_k <=20)";
        std::printf("%-22s %8.0f %9.2f %8.2f %6.3f %6.3f %9.3f\n",
                    label.c_str(),
                    r.tokens,
                    r.returned,
                    r.trimmed,
                    r.hit1,
                    r.hit5,
                    r.hit_all);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {  // a catalog or queries file that is not the expected JSON
        std::fprintf(stderr, "scout-bench-budget: %s\n", e.what());
        return 1;
    }
}
