// calibration_file.cpp: the fusion calibration file of `scout calibrate` (Calibration in
// scout/options.hpp): its text, its strict reader, and the check that it fits an embedder.

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "scout/options.hpp"

#include "util/file_io.hpp"

namespace scout {
namespace {

constexpr std::string_view kCalibrationFusionPrefix = "fusion.";
/// A calibration file is a few hundred bytes; anything far larger is not one.
constexpr std::size_t kMaxCalibrationBytes = std::size_t{64} * 1024;

bool is_fusion_key(std::string_view key) {
    return key.substr(0, kCalibrationFusionPrefix.size()) == kCalibrationFusionPrefix;
}

Status line_error(std::size_t line, const std::string& what) {
    return {Errc::invalid_argument, "calibration file, line " + std::to_string(line) + ": " + what};
}

/// A real value's text must read as a finite number: set_option's bounds would refuse NaN, but
/// the message says why.
bool names_non_finite(std::string_view value) {
    const std::string text(value);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end != text.c_str() && !std::isfinite(v);
}

}  // namespace

std::string format_calibration(const Calibration& calibration) {
    std::ostringstream out;
    out << kCalibrationHeader << "\n";
    std::istringstream notes(calibration.notes);
    for (std::string line; std::getline(notes, line);) {
        out << "# " << line << "\n";
    }
    out << "model " << calibration.model_id << "\n";
    CatalogOptions options;
    options.fusion = calibration.fusion;
    for (const OptionField& field : option_fields()) {
        if (is_fusion_key(field.key)) {
            out << field.key << " " << option_text(options, field) << "\n";
        }
    }
    out << "end\n";
    return out.str();
}

Result<Calibration> parse_calibration(std::string_view text) {
    Calibration calibration;
    CatalogOptions options;
    std::set<std::string, std::less<>> seen;
    bool header = false;
    bool has_model = false;
    bool ended = false;
    std::size_t number = 0;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        if (eol == std::string_view::npos) {
            // Every line the writer emits ends with a newline; a last line without one was cut.
            return line_error(number + 1, "no newline at the end (the file is truncated)");
        }
        std::string_view line = text.substr(0, eol);
        text.remove_prefix(eol + 1);
        ++number;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (ended) {
            if (!line.empty()) {
                return line_error(number, "text after the end line");
            }
            continue;
        }
        if (!header) {
            if (line == kCalibrationHeader) {
                header = true;
                continue;
            }
            if (line.substr(0, 18) == "scout-calibration ") {
                return Status{Errc::version_unsupported,
                              "calibration file: unsupported version '" +
                                  std::string(line.substr(18, 16)) + "' (this scout reads " +
                                  std::string(kCalibrationHeader.substr(18)) + ")"};
            }
            return line_error(number,
                              "not a calibration file (the first line must be '" +
                                  std::string(kCalibrationHeader) + "')");
        }
        if (line.empty() || line.front() == '#') {
            continue;
        }
        if (line == "end") {
            ended = true;
            continue;
        }
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos || space == 0 || space + 1 == line.size()) {
            return line_error(number, "expected 'KEY VALUE'");
        }
        const std::string_view key = line.substr(0, space);
        const std::string_view value = line.substr(space + 1);
        const std::string shown_key(key.substr(0, 64));
        if (!seen.insert(std::string(key)).second) {
            return line_error(number, "'" + shown_key + "' given twice");
        }
        if (key == "model") {
            calibration.model_id = std::string(value);
            has_model = true;
            continue;
        }
        const OptionField* field = find_option(key);
        if (!is_fusion_key(key) || field == nullptr) {
            return line_error(number, "unknown key '" + shown_key + "'");
        }
        if (field->type == OptionType::real && names_non_finite(value)) {
            return line_error(number, "'" + shown_key + "' is not a finite number");
        }
        if (Status s = set_option(options, key, value); !s.ok()) {
            return line_error(number, s.message());
        }
    }
    if (!header) {
        return Status{Errc::invalid_argument, "calibration file is empty"};
    }
    if (!ended) {
        return Status{Errc::invalid_argument,
                      "calibration file has no 'end' line (it is truncated)"};
    }
    if (!has_model) {
        return Status{Errc::invalid_argument,
                      "calibration file names no model (a 'model ID' line)"};
    }
    calibration.fusion = options.fusion;
    return calibration;
}

Result<Calibration> read_calibration(const std::string& path) {
    auto bytes = detail::read_text_file(path, kMaxCalibrationBytes);
    if (!bytes) {
        // The file reader's messages name the path already; name it once.
        const std::string why = bytes.status().message();
        return Status{
            bytes.status().code(),
            "calibration file " + (why.find(path) == std::string::npos ? path + ": " + why : why)};
    }
    auto calibration = parse_calibration(bytes.value());
    if (!calibration) {
        return Status{calibration.status().code(),
                      "calibration file " + path + ": " + calibration.status().message()};
    }
    return calibration;
}

Status check_calibration_model(const Calibration& calibration,
                               std::string_view model_id,
                               std::string_view file) {
    if (calibration.model_id == model_id) {
        return {};
    }
    const std::string model = model_id.empty() ? std::string("none") : std::string(model_id);
    return Status{Errc::embedder_mismatch,
                  "calibration file " + std::string(file) + " was fitted for model '" +
                      calibration.model_id + "', not '" + model +
                      "'; run `scout calibrate` with this embedder"};
}

}  // namespace scout
