// doctor.hpp: the catalog doctor. Finds what makes tools hard to retrieve or to call (empty or
// short descriptions, undocumented or untyped parameters, names LLM APIs reject, duplicated
// descriptions, tools that the catalog's own search confuses with others) and sums it up as a
// self-retrieval rate and a score per server. docs/doctor.md explains every finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scout/export.hpp"
#include "scout/searcher.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout {

enum class Severity : std::uint8_t { info, warning, error };

/// What a finding is about.
enum class FindingKind : std::uint8_t {
    empty_description,              ///< the tool has no description at all
    short_description,              ///< fewer than min_description_chars characters
    missing_parameter_description,  ///< input parameters without a description
    untyped_schema,                 ///< the schema or some of its parameters have no type
    invalid_name,                   ///< longer than 64 or outside ^[a-zA-Z0-9_-]+$
    duplicate_description,          ///< the same description (after normalising) as others
    near_duplicate_description,     ///< nearly the same words as another tool's description
    confusable,                     ///< other tools outrank it, or score close, for its own text
    empty_server_description,       ///< a server without a description (server-level)
};

[[nodiscard]] SCOUT_API std::string_view severity_name(Severity severity) noexcept;
[[nodiscard]] SCOUT_API std::string_view finding_kind_name(FindingKind kind) noexcept;

/// One problem, with what to do about it. `tool` is empty for a server-level finding.
struct Finding {
    FindingKind kind = FindingKind::empty_description;
    Severity severity = Severity::info;
    std::string server;
    std::string tool;
    std::string detail;            ///< what was seen
    std::string fix;               ///< what to change
    std::vector<ToolKey> related;  ///< the duplicates or the confusable tools
};

/// Per server: its tools, findings and self-retrieval, and a 0..100 health score (the mean of
/// its tools' scores; a tool starts at 1 and loses 0.5 per error, 0.2 per warning and 0.05 per
/// info finding, floored at 0).
struct ServerHealth {
    std::string server;
    std::size_t tools = 0;
    std::size_t errors = 0;
    std::size_t warnings = 0;
    std::size_t infos = 0;
    std::size_t self_retrieved = 0;  ///< tools that rank first for their own description
    double score = 100;
};

struct DoctorReport {
    std::size_t servers = 0;
    std::size_t tools = 0;
    /// Indexed tools searched with their own description (every searchable tool).
    std::size_t self_retrieval_checked = 0;
    /// Of those, the tools ranked first. A tool without a description counts as a miss.
    std::size_t self_retrieved = 0;
    std::vector<Finding> findings;     ///< by server, tool, then kind
    std::vector<ServerHealth> health;  ///< by server name

    /// self_retrieved / self_retrieval_checked (0 when nothing was checked).
    [[nodiscard]] double self_retrieval_rate() const noexcept;
    [[nodiscard]] std::size_t count(Severity severity) const noexcept;
    [[nodiscard]] std::size_t count(FindingKind kind) const noexcept;
};

struct DoctorOptions {
    /// A description shorter than this (in characters, after trimming) is "short".
    std::size_t min_description_chars = 30;
    /// LLM tool APIs (OpenAI, Anthropic) accept names of at most 64 characters of [a-zA-Z0-9_-].
    std::size_t max_name_chars = 64;
    /// Two descriptions whose word sets have a Jaccard similarity at least this are
    /// near-duplicates.
    double near_duplicate_jaccard = 0.8;
    /// Another tool is confusable when it outranks the tool for the tool's own text, or scores
    /// at least (1 - confusable_margin) x the tool's score.
    double confusable_margin = 0.05;
    /// Hits fetched per self-retrieval search.
    std::size_t self_search_top_k = 5;
    /// Run the self-retrieval searches (confusables, near-duplicates, the rate); off = the
    /// static checks only.
    bool self_retrieval = true;
    /// Mode, scope and fusion of the self-retrieval searches.
    SearchOptions search;
};

/// Examines `spec` (every server, any status) and, through `searcher` (which should index the
/// same catalog), the retrievability of each searchable tool: its description and its name
/// turned into words are searched, and the tools that outrank it or score within the margin are
/// its confusables. Deterministic for a given catalog and searcher. Errors: invalid_argument for
/// options out of range.
[[nodiscard]] SCOUT_API Result<DoctorReport> diagnose(const CatalogSpec& spec,
                                                      const Searcher& searcher,
                                                      const DoctorOptions& options = {});

/// "doctor: 12 tools on 3 servers, 2 errors, 5 warnings, 1 info; self-retrieval 83.3% (10/12);
/// lowest server score: files 61".
[[nodiscard]] SCOUT_API std::string doctor_summary(const DoctorReport& report);

/// The whole report as JSON text (summary figures, servers, findings).
[[nodiscard]] SCOUT_API std::string doctor_report_json(const DoctorReport& report);

}  // namespace scout
