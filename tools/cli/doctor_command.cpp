// doctor_command.cpp: `scout doctor --catalog FILE [--json] [--fail-on error|warning|never]`: the
// catalog doctor's report (scout/doctor.hpp) on a catalog file, indexed with the chosen embedder
// like `scout search`; with --fail-on, exit code 1 when a finding is that severe or worse.
#include <cmath>
#include <iostream>
#include <optional>

#include "scout/catalog_loader.hpp"
#include "scout/doctor.hpp"

#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace scout::cli {
namespace {

void print_doctor_text(const DoctorReport& report) {
    std::cout << doctor_summary(report) << "\n\nservers (score 0-100, self-retrieved/tools):\n";
    for (const ServerHealth& h : report.health) {
        std::cout << "  " << h.server << "  " << std::lround(h.score) << "  (" << h.self_retrieved
                  << "/" << h.tools << "; " << h.errors << " errors, " << h.warnings
                  << " warnings, " << h.infos << " infos)\n";
    }
    std::cout << "\nfindings:\n";
    for (const Finding& f : report.findings) {
        std::cout << "  [" << severity_name(f.severity) << "] " << finding_kind_name(f.kind) << "  "
                  << f.server << (f.tool.empty() ? "" : " / " + f.tool) << ": " << f.detail;
        for (std::size_t i = 0; i < f.related.size(); ++i) {
            std::cout << (i ? ", " : " (with ") << f.related[i].server << "/" << f.related[i].tool;
        }
        std::cout << (f.related.empty() ? "" : ")") << "\n      fix: " << f.fix << "\n";
    }
}

}  // namespace

int run_doctor(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, doctor_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    const Args* args = &*parsed.args;
    // --fail-on: the least severe finding that makes the exit code 1, so CI can gate on it.
    std::optional<Severity> fail_on;
    if (auto level = args->get("fail-on"); level && *level != "never") {
        if (*level == "error") {
            fail_on = Severity::error;
        } else if (*level == "warning") {
            fail_on = Severity::warning;
        } else {
            return fail("--fail-on must be error, warning or never (got " + *level + ")");
        }
    }
    const auto path = args->get("catalog");
    if (!path || args->has("index")) {
        return fail("doctor needs --catalog FILE (the catalog's own text is examined)");
    }
    auto spec = load_catalog_file(*path);
    if (!spec) {
        return fail(spec.status().message());
    }
    auto options = search_options(*args);
    if (!options) {
        return fail(options.status().message());
    }
    auto loaded = load_catalog(*args);
    if (!loaded) {
        return fail(loaded.status().message());
    }
    DoctorOptions doctor;
    doctor.search = options.value();
    auto report = diagnose(spec.value(), loaded->searcher, doctor);
    if (!report) {
        return fail(report.status().message());
    }
    if (args->has("json")) {
        std::cout << doctor_report_json(report.value()) << "\n";
    } else {
        print_doctor_text(report.value());
    }
    if (fail_on) {
        for (const Finding& f : report->findings) {
            if (f.severity >= *fail_on) {
                return kExitFailure;
            }
        }
    }
    return kExitOk;
}

}  // namespace scout::cli
