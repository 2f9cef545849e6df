// evaluation.cpp: see evaluation.hpp. Binary relevance throughout.
#include "eval/evaluation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "scout/catalog_loader.hpp"

#include "util/file_io.hpp"
#include "util/json_limits.hpp"

namespace scout::eval {

Result<std::vector<LabelledQuery>> parse_queries(std::string_view text) {
    using nlohmann::json;
    auto parsed = detail::parse_json(text);  // depth-bounded, like every file from outside
    if (!parsed) {
        return parsed.status();
    }
    try {
        const json& root = parsed.value();
        if (!root.is_object() || !root.contains("queries") || !root["queries"].is_array()) {
            return Status{Errc::invalid_argument, "expected an object with a 'queries' array"};
        }
        std::vector<LabelledQuery> out;
        const json& queries = root["queries"];
        for (std::size_t i = 0; i < queries.size(); ++i) {
            const json& q = queries[i];
            const std::string where = "queries[" + std::to_string(i) + "]";
            if (!q.is_object() || !q.contains("query") || !q["query"].is_string()) {
                return Status{Errc::invalid_argument, where + ": 'query' must be a string"};
            }
            LabelledQuery lq;
            lq.id = q.contains("id") && q["id"].is_string() ? q["id"].get<std::string>()
                                                            : std::to_string(i);
            lq.query = q["query"].get<std::string>();
            if (q.contains("relevant")) {
                if (!q["relevant"].is_array()) {
                    return Status{Errc::invalid_argument, where + ": 'relevant' must be an array"};
                }
                for (const json& r : q["relevant"]) {
                    if (!r.is_object() || !r.contains("server") || !r.contains("tool") ||
                        !r["server"].is_string() || !r["tool"].is_string()) {
                        return Status{
                            Errc::invalid_argument,
                            where + ": each relevant entry needs string 'server' and 'tool'"};
                    }
                    lq.relevant.push_back(
                        {r["server"].get<std::string>(), r["tool"].get<std::string>()});
                }
            }
            out.push_back(std::move(lq));
        }
        return out;
    } catch (const json::exception& e) {
        return Status{Errc::invalid_argument, std::string("malformed JSON: ") + e.what()};
    }
}

Result<std::vector<LabelledQuery>> load_queries(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path, kMaxCatalogFileBytes);
    if (!text) {
        return text.status();
    }
    auto queries = parse_queries(text.value());
    if (!queries) {
        return Status{queries.status().code(), path.string() + ": " + queries.status().message()};
    }
    return queries;
}

double union_hit_at(const Report& a, const Report& b, std::size_t k) {
    const auto within = [k](std::size_t rank) { return rank != 0 && rank <= k; };
    std::size_t both = 0;
    std::size_t hits = 0;
    for (std::size_t i = 0; i < a.outcomes.size(); ++i) {
        const QueryOutcome& x = a.outcomes[i];
        // Reports of one query list hold the same outcomes in the same order; search otherwise.
        const auto y = i < b.outcomes.size() && b.outcomes[i].id == x.id
                           ? b.outcomes.begin() + static_cast<std::ptrdiff_t>(i)
                           : std::find_if(b.outcomes.begin(),
                                          b.outcomes.end(),
                                          [&](const QueryOutcome& o) { return o.id == x.id; });
        if (y == b.outcomes.end()) {
            continue;
        }
        ++both;
        hits += within(x.first_relevant_rank) || within(y->first_relevant_rank) ? 1U : 0U;
    }
    return both == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(both);
}

double quantile(std::vector<double> sample, double q) {
    if (sample.empty()) {
        return 0;
    }
    std::sort(sample.begin(), sample.end());
    const double pos = q * static_cast<double>(sample.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sample.size() - 1);
    return sample[lo] + (pos - static_cast<double>(lo)) * (sample[hi] - sample[lo]);
}

Report evaluate(const Searcher& searcher,
                const std::vector<LabelledQuery>& queries,
                const Options& options) {
    constexpr std::size_t kDepth = 20;
    Report report;
    report.queries = queries.size();
    SearchOptions search = options.search;
    const std::size_t user_k = std::clamp<std::size_t>(search.top_k, 1, SearchOptions::kMaxTopK);
    search.fetch_k = search.fetch_k != 0 ? search.fetch_k : user_k * options.fetch_factor;
    // A single branch answers from its own pool of max(k, fetch) candidates (what the user's
    // search ranks); hybrid ranks the union of both branches' pools. Listing a single branch
    // deeper than its pool would credit it with candidates the user's search never holds.
    search.top_k =
        search.mode == Mode::hybrid ? kDepth : std::min(kDepth, std::max(user_k, search.fetch_k));
    search.auto_k = false;
    SearchOptions automatic = options.search;  // as the user sends it
    automatic.fetch_k = search.fetch_k;
    std::vector<double> latencies;
    std::size_t done = 0;
    for (const LabelledQuery& q : queries) {
        if (options.progress) {
            options.progress(done++, queries.size());
        }
        const auto started = std::chrono::steady_clock::now();
        auto result = searcher.search(q.query, search);
        latencies.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started)
                .count());
        if (q.relevant.empty()) {
            ++report.catalog_gaps;
            continue;
        }
        ++report.evaluable;
        if (!result) {
            if (report.errors++ == 0) {
                report.first_error = result.status().message();
            }
            continue;
        }
        report.degraded += result->degraded ? 1U : 0U;
        const auto is_relevant = [&](const Hit& h) {
            return std::any_of(q.relevant.begin(), q.relevant.end(), [&](const ToolKey& k) {
                return k.server == h.server && k.tool == h.tool;
            });
        };
        if (options.search.auto_k) {
            if (auto cut = searcher.search(q.query, automatic)) {
                report.auto_k_mean += static_cast<double>(cut->hits.size());
                report.hit_at_auto_k +=
                    std::any_of(cut->hits.begin(), cut->hits.end(), is_relevant) ? 1 : 0;
            }
        }
        const auto& hits = result->hits;
        std::size_t first = 0;  // 1-based rank of the first relevant hit, 0 if none
        std::size_t relevant_in_5 = 0;
        double dcg = 0;
        for (std::size_t r = 0; r < hits.size(); ++r) {
            if (!is_relevant(hits[r])) {
                continue;
            }
            if (first == 0) {
                first = r + 1;
            }
            if (r < 5) {
                ++relevant_in_5;
                dcg += 1.0 / std::log2(static_cast<double>(r) + 2.0);
            }
        }
        double idcg = 0;
        for (std::size_t r = 0; r < std::min<std::size_t>(q.relevant.size(), 5); ++r) {
            idcg += 1.0 / std::log2(static_cast<double>(r) + 2.0);
        }
        QueryOutcome outcome{
            q.id, first, hits.empty() ? ToolKey{} : ToolKey{hits[0].server, hits[0].tool}, {}};
        for (const Hit& h : hits) {
            outcome.hits.push_back(
                {ToolKey{h.server, h.tool}, static_cast<float>(h.score), is_relevant(h)});
        }
        report.outcomes.push_back(std::move(outcome));
        report.hit_at_1 += (first == 1) ? 1 : 0;
        report.hit_at_5 += (first != 0 && first <= 5) ? 1 : 0;
        report.hit_at_10 += (first != 0 && first <= 10) ? 1 : 0;
        report.mrr += first != 0 ? 1.0 / static_cast<double>(first) : 0.0;
        report.recall_at_5 +=
            static_cast<double>(relevant_in_5) / static_cast<double>(q.relevant.size());
        report.ndcg_at_5 += idcg > 0 ? dcg / idcg : 0.0;
    }
    if (options.progress) {
        options.progress(queries.size(), queries.size());
    }
    if (report.evaluable > 0) {
        const auto n = static_cast<double>(report.evaluable);
        for (double* m : {&report.hit_at_1,
                          &report.hit_at_5,
                          &report.hit_at_10,
                          &report.mrr,
                          &report.recall_at_5,
                          &report.ndcg_at_5,
                          &report.auto_k_mean,
                          &report.hit_at_auto_k}) {
            *m /= n;
        }
    }
    report.p50_us = quantile(latencies, 0.50);
    report.p95_us = quantile(latencies, 0.95);
    report.p99_us = quantile(latencies, 0.99);
    return report;
}

}  // namespace scout::eval
