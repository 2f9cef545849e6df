// doctor_report.cpp: see doctor_report.hpp.
#include "doctor_report.hpp"

#include <nlohmann/json.hpp>

#include "file_io.hpp"

namespace scout::gateway {

Status DoctorReportFile::update(const std::string& server, const std::string& report_json) {
    std::lock_guard lock(mutex_);
    reports_[server] = report_json;
    nlohmann::json servers = nlohmann::json::object();
    for (const auto& [name, text] : reports_) {
        servers[name] = nlohmann::json::parse(text, nullptr, false);
    }
    const nlohmann::json file{{"servers", std::move(servers)}};
    return detail::write_file_atomically(
        path_, file.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace scout::gateway
