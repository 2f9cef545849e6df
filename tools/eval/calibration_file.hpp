// calibration_file.hpp: the fusion settings `scout calibrate` fitted for one embedder, as a small
// versioned text file that `scout index --calibration FILE` applies to the index's options.
#pragma once

#include <string>
#include <string_view>

#include "scout/options.hpp"
#include "scout/status.hpp"

namespace scout::eval {

/// The first line of every calibration file; the number is the format version.
inline constexpr std::string_view kCalibrationHeader = "scout-calibration 1";

/// What a calibration file holds: the model the fusion was fitted for, and the fusion settings.
struct Calibration {
    /// Embedder::model_id() of the embedder as created, before it saw any catalog.
    std::string model_id;
    FusionOptions fusion;
    /// Free text written as `#` comment lines (how the settings were chosen); not read back.
    std::string notes;

    friend bool operator==(const Calibration& a, const Calibration& b) {
        return a.model_id == b.model_id && a.fusion == b.fusion;
    }
};

/// The file's text: the header, `model ID`, one `fusion.KEY VALUE` line per fusion setting of the
/// option table, and `end` (so a truncated file is told apart from a complete one).
[[nodiscard]] std::string format_calibration(const Calibration& calibration);

/// Reads format_calibration's text. invalid_argument naming the line for a missing or other
/// header (version_unsupported for another version), an unknown or repeated key, a value out of
/// the option's bounds or not finite, a missing `model` line, or no `end` line (truncated).
/// Blank lines and lines starting with `#` are skipped; settings not listed keep their defaults.
[[nodiscard]] Result<Calibration> parse_calibration(std::string_view text);

/// parse_calibration of a file's bytes; io_error when it cannot be read.
[[nodiscard]] Result<Calibration> read_calibration(const std::string& path);

}  // namespace scout::eval
