// doctor_report.hpp: the catalog doctor's JSON report file of scout-gateway (--doctor-report).
// Each backend's report replaces its previous one when it is (re)indexed; the file always holds
// every backend's latest report: {"servers": {"name": <doctor report>, ...}}.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "scout/status.hpp"

namespace scout::gateway {

/// Thread-safe: backends index concurrently.
class DoctorReportFile {
public:
    explicit DoctorReportFile(std::string path) : path_(std::move(path)) {}

    /// Stores `report_json` (doctor_report_json) for `server` and rewrites the file atomically.
    [[nodiscard]] Status update(const std::string& server, const std::string& report_json);

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
    std::mutex mutex_;
    std::map<std::string, std::string> reports_;  ///< by server name, as JSON text
};

}  // namespace scout::gateway
