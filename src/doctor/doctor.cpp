// doctor.cpp: diagnose() runs the static and the self-retrieval checks, orders the findings,
// and scores each server; the one-line summary and the JSON rendering of a report.
#include "scout/doctor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "doctor/checks.hpp"

namespace scout {
namespace {

/// What a finding of each severity takes off a tool's score (a tool starts at 1).
double penalty(Severity severity) {
    switch (severity) {
        case Severity::error:
            return 0.5;
        case Severity::warning:
            return 0.2;
        case Severity::info:
            return 0.05;
    }
    return 0;
}

std::vector<ServerHealth> score_servers(const CatalogSpec& spec,
                                        const std::vector<Finding>& findings,
                                        const detail::SelfRetrieval& self) {
    std::map<std::pair<std::string, std::string>, double> tool_penalty;
    std::map<std::string, ServerHealth> by_server;
    for (const ServerSpec& s : spec.servers) {
        ServerHealth& h = by_server[s.name];
        h.server = s.name;
        h.tools = s.tools.size();
        for (const ToolSpec& t : s.tools) {
            tool_penalty[{s.name, t.name}] = 0;
        }
        if (auto it = self.first.find(s.name); it != self.first.end()) {
            for (const auto& [tool, first] : it->second) {
                h.self_retrieved += first ? 1 : 0;
            }
        }
    }
    for (const Finding& f : findings) {
        ServerHealth& h = by_server[f.server];
        h.errors += f.severity == Severity::error ? 1 : 0;
        h.warnings += f.severity == Severity::warning ? 1 : 0;
        h.infos += f.severity == Severity::info ? 1 : 0;
        if (!f.tool.empty()) {
            tool_penalty[{f.server, f.tool}] += penalty(f.severity);
        }
    }
    std::vector<ServerHealth> out;
    for (auto& [name, h] : by_server) {
        double sum = 0;
        std::size_t n = 0;
        for (auto it = tool_penalty.lower_bound({name, ""});
             it != tool_penalty.end() && it->first.first == name;
             ++it) {
            sum += std::max(0.0, 1.0 - it->second);
            ++n;
        }
        h.score = n ? 100.0 * sum / static_cast<double>(n) : 100.0;
        out.push_back(std::move(h));
    }
    return out;
}

std::string percent(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", value * 100);
    return buffer;
}

}  // namespace

std::string_view severity_name(Severity severity) noexcept {
    switch (severity) {
        case Severity::info:
            return "info";
        case Severity::warning:
            return "warning";
        case Severity::error:
            return "error";
    }
    return "unknown";
}

std::string_view finding_kind_name(FindingKind kind) noexcept {
    switch (kind) {
        case FindingKind::empty_description:
            return "empty_description";
        case FindingKind::short_description:
            return "short_description";
        case FindingKind::missing_parameter_description:
            return "missing_parameter_description";
        case FindingKind::untyped_schema:
            return "untyped_schema";
        case FindingKind::invalid_name:
            return "invalid_name";
        case FindingKind::duplicate_description:
            return "duplicate_description";
        case FindingKind::near_duplicate_description:
            return "near_duplicate_description";
        case FindingKind::confusable:
            return "confusable";
        case FindingKind::empty_server_description:
            return "empty_server_description";
    }
    return "unknown";
}

double DoctorReport::self_retrieval_rate() const noexcept {
    return self_retrieval_checked == 0
               ? 0.0
               : static_cast<double>(self_retrieved) / static_cast<double>(self_retrieval_checked);
}

std::size_t DoctorReport::count(Severity severity) const noexcept {
    return static_cast<std::size_t>(
        std::count_if(findings.begin(), findings.end(), [&](const Finding& f) {
            return f.severity == severity;
        }));
}

std::size_t DoctorReport::count(FindingKind kind) const noexcept {
    return static_cast<std::size_t>(std::count_if(
        findings.begin(), findings.end(), [&](const Finding& f) { return f.kind == kind; }));
}

Result<DoctorReport> diagnose(const CatalogSpec& spec,
                              const Searcher& searcher,
                              const DoctorOptions& options) {
    if (!(options.confusable_margin >= 0 && options.confusable_margin < 1)) {
        return Status{Errc::invalid_argument, "confusable_margin must be in [0, 1)"};
    }
    if (!(options.near_duplicate_jaccard > 0 && options.near_duplicate_jaccard <= 1)) {
        return Status{Errc::invalid_argument, "near_duplicate_jaccard must be in (0, 1]"};
    }
    if (options.self_search_top_k < 1 || options.self_search_top_k > SearchOptions::kMaxTopK) {
        return Status{Errc::invalid_argument, "self_search_top_k must be in [1, 20]"};
    }
    DoctorReport report;
    report.servers = spec.servers.size();
    for (const ServerSpec& server : spec.servers) {
        report.tools += server.tools.size();
        detail::check_server(server, report.findings);
        for (const ToolSpec& tool : server.tools) {
            detail::check_tool(server, tool, options, report.findings);
        }
    }
    detail::check_duplicates(spec, report.findings);
    detail::SelfRetrieval self;
    if (options.self_retrieval) {
        auto checked = detail::check_self_retrieval(searcher, options, report.findings);
        if (!checked) {
            return checked.status();
        }
        self = std::move(checked.value());
    }
    report.self_retrieval_checked = self.checked;
    for (const auto& [server, tools] : self.first) {
        for (const auto& [tool, first] : tools) {
            report.self_retrieved += first ? 1 : 0;
        }
    }
    std::stable_sort(
        report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
            return std::tie(a.server, a.tool, a.kind) < std::tie(b.server, b.tool, b.kind);
        });
    report.health = score_servers(spec, report.findings, self);
    return report;
}

std::string doctor_summary(const DoctorReport& report) {
    std::string out = "doctor: " + std::to_string(report.tools) + " tools on " +
                      std::to_string(report.servers) + " servers, " +
                      std::to_string(report.count(Severity::error)) + " errors, " +
                      std::to_string(report.count(Severity::warning)) + " warnings, " +
                      std::to_string(report.count(Severity::info)) + " infos";
    if (report.self_retrieval_checked > 0) {
        out += "; self-retrieval " + percent(report.self_retrieval_rate()) + " (" +
               std::to_string(report.self_retrieved) + "/" +
               std::to_string(report.self_retrieval_checked) + ")";
    }
    const auto lowest = std::min_element(
        report.health.begin(),
        report.health.end(),
        [](const ServerHealth& a, const ServerHealth& b) { return a.score < b.score; });
    if (lowest != report.health.end()) {
        out += "; lowest server score: " + lowest->server + " " +
               std::to_string(std::lround(lowest->score));
    }
    return out;
}

std::string doctor_report_json(const DoctorReport& report) {
    using Json = nlohmann::json;
    Json by_kind = Json::object();
    Json findings = Json::array();
    for (const Finding& f : report.findings) {
        const std::string kind(finding_kind_name(f.kind));
        by_kind[kind] = by_kind.value(kind, 0) + 1;
        Json related = Json::array();
        for (const ToolKey& k : f.related) {
            related.push_back(Json{{"server", k.server}, {"tool", k.tool}});
        }
        Json one{{"kind", kind},
                 {"severity", severity_name(f.severity)},
                 {"server", f.server},
                 {"detail", f.detail},
                 {"fix", f.fix}};
        if (!f.tool.empty()) {
            one["tool"] = f.tool;
        }
        if (!related.empty()) {
            one["related"] = std::move(related);
        }
        findings.push_back(std::move(one));
    }
    Json servers = Json::array();
    for (const ServerHealth& h : report.health) {
        servers.push_back(Json{{"server", h.server},
                               {"tools", h.tools},
                               {"errors", h.errors},
                               {"warnings", h.warnings},
                               {"infos", h.infos},
                               {"self_retrieved", h.self_retrieved},
                               {"score", h.score}});
    }
    Json out{{"summary",
              {{"servers", report.servers},
               {"tools", report.tools},
               {"errors", report.count(Severity::error)},
               {"warnings", report.count(Severity::warning)},
               {"infos", report.count(Severity::info)},
               {"self_retrieval_checked", report.self_retrieval_checked},
               {"self_retrieved", report.self_retrieved},
               {"self_retrieval_rate", report.self_retrieval_rate()},
               {"findings_by_kind", std::move(by_kind)}}},
             {"servers", std::move(servers)},
             {"findings", std::move(findings)}};
    return out.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace scout
