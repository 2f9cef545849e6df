// self_retrieval.cpp: searches the catalog with each tool's own description and with its name
// turned into words. A tool that other tools outrank, or that scores within a margin of them,
// is confusable with them; a retrieved tool with nearly the same description words is a
// near-duplicate. The searches run on a few threads (Searcher is thread-safe); the findings are
// gathered in tool order, so the report does not depend on scheduling.
#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <thread>

#include "doctor/checks.hpp"
#include "doctor/text.hpp"

namespace scout::detail {
namespace {

/// What one tool's searches found.
struct ToolOutcome {
    bool first = false;
    std::vector<Finding> findings;
    Status status;
};

/// Where `self` ranks in `hits` (1-based; 0 = absent), and the tools that outrank it or score
/// within the margin of it (every hit when it is absent).
std::uint32_t rank_and_rivals(const std::vector<Hit>& hits,
                              const Hit& self,
                              double margin,
                              std::set<std::pair<std::string, std::string>>& rivals) {
    std::uint32_t rank = 0;
    for (std::size_t i = 0; i < hits.size(); ++i) {
        if (hits[i].server == self.server && hits[i].tool == self.tool) {
            rank = static_cast<std::uint32_t>(i + 1);
            break;
        }
    }
    const double own = rank ? static_cast<double>(hits[rank - 1].score) : 0.0;
    for (std::size_t i = 0; i < hits.size(); ++i) {
        if (rank == i + 1) {
            continue;
        }
        const bool above = rank == 0 || i + 1 < rank;
        const bool close = rank != 0 && static_cast<double>(hits[i].score) >= own * (1 - margin);
        if (above || close) {
            rivals.emplace(hits[i].server, hits[i].tool);
        }
    }
    return rank;
}

std::string rank_text(std::uint32_t rank, std::size_t k) {
    std::string text = rank ? "#" : "not in the top ";
    text += std::to_string(rank ? rank : k);
    return text;
}

/// Cuts a query to the searcher's limit at a UTF-8 character boundary.
std::string_view bounded_query(std::string_view text) {
    if (text.size() <= Searcher::kMaxQueryBytes) {
        return text;
    }
    std::size_t end = Searcher::kMaxQueryBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
        --end;
    }
    return text.substr(0, end);
}

ToolOutcome examine(const Searcher& searcher, const Hit& self, const DoctorOptions& options) {
    ToolOutcome out;
    SearchOptions search = options.search;
    search.top_k = options.self_search_top_k;
    search.exact_name_first = false;
    search.auto_k = false;

    std::set<std::pair<std::string, std::string>> rivals;
    std::uint32_t description_rank = 0;
    std::vector<Hit> description_hits;
    const std::string_view description = bounded_query(trim(self.description));
    if (!description.empty()) {
        auto result = searcher.search(description, search);
        if (!result) {
            out.status = result.status();
            return out;
        }
        description_hits = std::move(result->hits);
        description_rank =
            rank_and_rivals(description_hits, self, options.confusable_margin, rivals);
    }
    out.first = description_rank == 1;

    const std::string name_query = identifier_words(self.tool);
    std::uint32_t name_rank = 0;
    if (!name_query.empty()) {
        auto result = searcher.search(name_query, search);
        if (!result) {
            out.status = result.status();
            return out;
        }
        name_rank = rank_and_rivals(result->hits, self, options.confusable_margin, rivals);
    }

    if (!rivals.empty()) {
        Finding f{FindingKind::confusable, Severity::info, self.server, self.tool, "", "", {}};
        // Losing the first place for its own description is what breaks retrieval; a rival
        // close behind, or one that wins only for the bare name, is a risk.
        if (!description.empty() && description_rank != 1) {
            f.severity = Severity::warning;
        }
        f.detail = "own description ranks it " +
                   (description.empty() ? std::string("(no description)")
                                        : rank_text(description_rank, search.top_k)) +
                   ", its name as words (\"" + name_query + "\") " +
                   rank_text(name_rank, search.top_k) + "; " + std::to_string(rivals.size()) +
                   " tool(s) outrank it or score within " +
                   std::to_string(static_cast<int>(options.confusable_margin * 100)) + "%";
        f.fix =
            "name the object and the action that only this tool has, in its name and in the "
            "first sentence of its description";
        for (const auto& [server, tool] : rivals) {
            if (f.related.size() < 5) {
                f.related.push_back(ToolKey{server, tool});
            }
        }
        out.findings.push_back(std::move(f));
    }

    const std::vector<std::string> own_words = description_words(self.description);
    const std::string own_text = normalized_description(self.description);
    Finding near{FindingKind::near_duplicate_description,
                 Severity::info,
                 self.server,
                 self.tool,
                 "",
                 "",
                 {}};
    double best = 0;
    for (const Hit& other : description_hits) {
        if (other.server == self.server && other.tool == self.tool) {
            continue;
        }
        if (normalized_description(other.description) == own_text) {
            continue;  // an exact duplicate: reported by check_duplicates
        }
        const double j = word_jaccard(own_words, description_words(other.description));
        if (j >= options.near_duplicate_jaccard) {
            near.related.push_back(ToolKey{other.server, other.tool});
            best = std::max(best, j);
        }
    }
    if (!near.related.empty()) {
        near.detail = "nearly the same description words as " +
                      std::to_string(near.related.size()) + " tool(s) (Jaccard up to " +
                      std::to_string(static_cast<int>(best * 100)) + "%)";
        near.fix =
            "describe what differs (the object, the scope, the result) instead of repeating "
            "a shared template";
        out.findings.push_back(std::move(near));
    }
    return out;
}

}  // namespace

Result<SelfRetrieval> check_self_retrieval(const Searcher& searcher,
                                           const DoctorOptions& options,
                                           std::vector<Finding>& out) {
    SearchOptions scope = options.search;
    const std::vector<Hit> tools = searcher.list_tools(scope);
    std::vector<ToolOutcome> outcomes(tools.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < tools.size(); i = next++) {
            try {
                outcomes[i] = examine(searcher, tools[i], options);
            } catch (const std::exception& e) {
                outcomes[i].status = Status{Errc::internal, e.what()};
            }
        }
    };
    const std::size_t threads =
        std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8) - 1;
    std::vector<std::thread> pool;
    try {
        for (std::size_t t = 0; t < threads && t + 1 < tools.size(); ++t) {
            pool.emplace_back(work);
        }
    } catch (const std::exception&) {
        // Fewer threads than asked for: the calling thread does the rest.
    }
    work();
    for (std::thread& t : pool) {
        t.join();
    }

    SelfRetrieval result;
    for (std::size_t i = 0; i < tools.size(); ++i) {
        if (!outcomes[i].status.ok()) {
            return outcomes[i].status;
        }
        ++result.checked;
        result.first[tools[i].server][tools[i].tool] = outcomes[i].first;
        for (Finding& f : outcomes[i].findings) {
            out.push_back(std::move(f));
        }
    }
    return result;
}

}  // namespace scout::detail
