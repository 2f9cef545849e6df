// fusion_calibration.hpp: the fusion calibration file (`scout calibrate`) the gateway builds its
// catalog with: --calibration FILE, else the config's "calibration". It is read as the gateway's
// other files are (a regular file, bounded, errors starting with the path), and it must have been
// fitted for the embedder in use. The fusion settings are the catalog's, fixed when it is
// created: SIGHUP checks the file again (a bad one refuses the reload) and reports a change as
// needing a restart, as it does a changed "embedder" section.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "scout/embedder.hpp"
#include "scout/options.hpp"
#include "scout/status.hpp"

#include "config.hpp"

namespace scout::gateway {

/// A calibration file's path and what it holds.
struct CalibrationFile {
    std::string path;
    Calibration calibration;

    friend bool operator==(const CalibrationFile&, const CalibrationFile&) = default;
};

/// The calibration file in force: `flag` (--calibration, as given) over the config's resolved
/// "calibration"; "" for none.
[[nodiscard]] std::string calibration_path(const std::string& flag, const GatewayConfig& config);

/// What can be checked without an embedder (--check-config): the file reads and parses, and
/// the embedder spec is not "none" (a calibration fuses a dense branch with BM25; with none
/// there is none, and a calibration named anyway is a configuration error).
[[nodiscard]] Status check_calibration_file(const std::string& path,
                                            const std::string& embedder_spec);

/// The calibration a gateway starting with `embedder` (made from `embedder_spec`) applies:
/// nullopt without a path, or when the embedder could not be made at start (the static model
/// missing, the service unreachable: BM25 alone, where fusion does not apply; `note` says so).
/// Errors, each naming the file: check_calibration_file's, and embedder_mismatch when the file
/// was fitted for another model than embedder->model_id().
[[nodiscard]] Result<std::optional<CalibrationFile>> start_calibration(
    const std::string& path,
    const std::string& embedder_spec,
    const std::shared_ptr<Embedder>& embedder,
    std::string& note);

/// SIGHUP's check of the calibration a reloaded config names (`path`, "" for none) against the
/// running gateway: the file must read and parse and fit the running model (`running_model_id`,
/// "" when the gateway runs BM25 alone: then only "none" refuses it). On success `change` is ""
/// when the reload leaves the calibration as it runs (`running`), else the line saying the
/// change waits for a restart.
[[nodiscard]] Status check_reloaded_calibration(const std::string& path,
                                                const std::string& running_embedder_spec,
                                                const std::string& running_model_id,
                                                const std::optional<CalibrationFile>& running,
                                                std::string& change);

/// The start-up log line of the calibration in force: "calibration: PATH, model ID: fusion.KEY
/// VALUE, ..." with the fusion settings of `options` (the catalog's own, as searched).
[[nodiscard]] std::string describe_calibration(const CalibrationFile& file,
                                               const CatalogOptions& options);

}  // namespace scout::gateway
