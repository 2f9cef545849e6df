// doctor_json.cpp: see doctor_json.hpp.
#include "capi/doctor_json.hpp"

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/doctor.hpp"

#include "capi/json_bridge.hpp"

namespace scout::detail {

Result<std::string> doctor_json(std::string_view servers_json, std::string_view options_json) {
    auto spec = parse_catalog_json(servers_json);
    if (!spec) {
        return spec.status();
    }
    auto config = catalog_config_from_json(options_json, true);
    if (!config) {
        return config.status();
    }
    auto catalog = Catalog::create(config->options, config->embedder);
    if (!catalog) {
        return catalog.status();
    }
    if (Status s = catalog->upsert_servers(spec.value()); !s.ok()) {
        return s;
    }
    if (auto committed = catalog->commit(); !committed) {
        return committed.status();
    }
    DoctorOptions doctor;
    doctor.search.mode = default_search_mode(config->embedder != nullptr);
    auto report = diagnose(spec.value(), catalog->searcher(), doctor);
    if (!report) {
        return report.status();
    }
    return doctor_report_json(report.value());
}

}  // namespace scout::detail
