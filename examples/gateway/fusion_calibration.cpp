// fusion_calibration.cpp: see fusion_calibration.hpp.
#include "fusion_calibration.hpp"

#include <string_view>

namespace scout::gateway {
namespace {

Status no_dense_branch(const std::string& path) {
    return Status{Errc::invalid_argument,
                  path +
                      ": a calibration sets how the dense branch is fused with BM25, and the "
                      "embedder is none (BM25 only): remove the calibration or configure an "
                      "embedder"};
}

}  // namespace

std::string calibration_path(const std::string& flag, const GatewayConfig& config) {
    return flag.empty() ? config.calibration_path : flag;
}

Status check_calibration_file(const std::string& path, const std::string& embedder_spec) {
    if (auto calibration = read_calibration(path); !calibration) {
        return calibration.status();
    }
    if (embedder_spec == "none") {
        return no_dense_branch(path);
    }
    return {};
}

Result<std::optional<CalibrationFile>> start_calibration(const std::string& path,
                                                         const std::string& embedder_spec,
                                                         const std::shared_ptr<Embedder>& embedder,
                                                         std::string& note) {
    note.clear();
    if (path.empty()) {
        return std::optional<CalibrationFile>();
    }
    auto calibration = read_calibration(path);
    if (!calibration) {
        return calibration.status();
    }
    if (embedder_spec == "none") {
        return no_dense_branch(path);
    }
    if (!embedder) {
        note = "calibration " + path +
               " not applied: the embedder is not available, so search is BM25 alone";
        return std::optional<CalibrationFile>();
    }
    if (Status s = check_calibration_model(*calibration, embedder->model_id(), path); !s.ok()) {
        return s;
    }
    return std::optional<CalibrationFile>(CalibrationFile{path, std::move(calibration.value())});
}

Status check_reloaded_calibration(const std::string& path,
                                  const std::string& running_embedder_spec,
                                  const std::string& running_model_id,
                                  const std::optional<CalibrationFile>& running,
                                  std::string& change) {
    change.clear();
    std::optional<CalibrationFile> reloaded;
    if (!path.empty()) {
        auto calibration = read_calibration(path);
        if (!calibration) {
            return calibration.status();
        }
        if (running_embedder_spec == "none") {
            return no_dense_branch(path);
        }
        if (!running_model_id.empty()) {
            if (Status s = check_calibration_model(*calibration, running_model_id, path); !s.ok()) {
                return s;
            }
            reloaded = CalibrationFile{path, std::move(calibration.value())};
        }
    }
    if (running_model_id.empty()) {
        return {};  // BM25 alone: no calibration runs, and none could
    }
    if (reloaded != running) {
        change = "the calibration changed (" + (running ? running->path : std::string("none")) +
                 " -> " + (reloaded ? reloaded->path : std::string("none")) +
                 "), which needs a restart: the running fusion settings stay until then";
    }
    return {};
}

std::string describe_calibration(const CalibrationFile& file, const CatalogOptions& options) {
    std::string out = "calibration: " + file.path + ", model " + file.calibration.model_id + ":";
    constexpr std::string_view kFusion = "fusion.";
    bool first = true;
    for (const OptionField& field : option_fields()) {
        if (field.key.substr(0, kFusion.size()) == kFusion) {
            out += std::string(first ? " " : ", ") + std::string(field.key) + " " +
                   option_text(options, field);
            first = false;
        }
    }
    return out;
}

}  // namespace scout::gateway
