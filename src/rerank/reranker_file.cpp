// reranker_file.cpp: the re-ranker's weights file (see scout/reranker.hpp): its text form, and
// the feature names that tie a file to the features this build computes.
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "scout/reranker.hpp"

#include "util/file_io.hpp"

namespace scout {
namespace {

constexpr std::string_view kMagic = "scout-reranker";
constexpr std::string_view kVersion = "1";
/// A weights file is a few hundred bytes; anything far larger is not one.
constexpr std::size_t kMaxFileBytes = std::size_t{64} * 1024;
/// A search ranks at most a few hundred candidates; a larger depth is not a trained setting.
constexpr std::size_t kMaxDepth = 10000;

constexpr std::string_view kFeatureNames[kRerankFeatureCount] = {
    "bm25_relative",         "bm25_reciprocal_rank", "dense_cosine", "dense_relative",
    "dense_reciprocal_rank", "fused_relative",       "in_both",      "cover_name",
    "cover_description",     "cover_parameters",     "cover_server", "cover_any",
    "name_words_in_query",   "name_in_query",        "bm25_name",    "bm25_description",
    "bm25_parameters",       "bm25_server",          "maxsim",       "maxsim_relative",
    "bm25_top_margin",
};

/// The file's lines, without their line ends; a last line without "\n" counts too.
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(line);
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
    return lines;
}

/// "key value" -> value when the line starts with `key` and one space, else nullopt.
std::optional<std::string_view> value_after(std::string_view line, std::string_view key) {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ' ') {
        return std::nullopt;
    }
    return line.substr(key.size() + 1);
}

std::optional<double> parse_finite(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

Status bad_line(std::size_t line, const std::string& what) {
    return {Errc::invalid_argument, "reranker file line " + std::to_string(line + 1) + ": " + what};
}

std::string number_text(double value) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc{} ? std::string(buffer, end) : std::string("0");
}

}  // namespace

std::string_view rerank_feature_name(RerankFeature feature) noexcept {
    const auto i = static_cast<std::size_t>(feature);
    return i < kRerankFeatureCount ? kFeatureNames[i] : std::string_view("unknown");
}

double Reranker::score(const std::array<float, kRerankFeatureCount>& features) const noexcept {
    double sum = bias;
    for (std::size_t i = 0; i < kRerankFeatureCount; ++i) {
        sum += weights[i] * static_cast<double>(features[i]);
    }
    return sum;
}

std::string Reranker::serialize() const {
    std::string out = std::string(kMagic) + " " + std::string(kVersion) + "\n";
    out += "features " + std::to_string(kRerankFeatureCount) + "\n";
    for (std::size_t i = 0; i < kRerankFeatureCount; ++i) {
        out += std::string(kFeatureNames[i]) + " " + number_text(weights[i]) + "\n";
    }
    out += "bias " + number_text(bias) + "\n";
    if (depth != 0) {
        out += "depth " + std::to_string(depth) + "\n";
    }
    out += "end\n";
    return out;
}

Result<Reranker> Reranker::parse(std::string_view text) {
    const std::vector<std::string_view> lines = lines_of(text);
    if (lines.empty() || value_after(lines[0], kMagic) == std::nullopt) {
        return Status{Errc::invalid_argument,
                      "not a reranker file (it must start with \"scout-reranker 1\")"};
    }
    if (*value_after(lines[0], kMagic) != kVersion) {
        return Status{Errc::version_unsupported,
                      "reranker file version " + std::string(*value_after(lines[0], kMagic)) +
                          " is not supported (this build reads version 1)"};
    }
    if (lines.size() < 2) {
        return Status{Errc::invalid_argument, "reranker file is truncated after its first line"};
    }
    const auto count = value_after(lines[1], "features");
    if (!count) {
        return bad_line(1, "expected \"features N\"");
    }
    // A file lists the first N features of this build's list (N <= the build's count), so a
    // file trained before features were added still reads: the ones it lacks weigh 0.
    std::size_t listed = 0;
    const auto [end, ec] = std::from_chars(count->data(), count->data() + count->size(), listed);
    if (ec != std::errc() || end != count->data() + count->size() || listed == 0 ||
        listed > kRerankFeatureCount) {
        return bad_line(1,
                        "the file has " + std::string(*count) + " features, this build computes " +
                            std::to_string(kRerankFeatureCount) +
                            " (the file was trained for another version)");
    }
    Reranker model;
    for (std::size_t i = 0; i < listed; ++i) {
        const std::size_t at = 2 + i;
        if (at >= lines.size()) {
            return Status{Errc::invalid_argument,
                          "reranker file is truncated: it ends before feature " +
                              std::string(kFeatureNames[i])};
        }
        const auto value = value_after(lines[at], kFeatureNames[i]);
        if (!value) {
            return bad_line(at,
                            "expected feature " + std::string(kFeatureNames[i]) +
                                " (the file's features do not match this build's)");
        }
        const auto weight = parse_finite(*value);
        if (!weight) {
            return bad_line(at, "the weight is not a finite number");
        }
        model.weights[i] = *weight;
    }
    const std::size_t bias_at = 2 + listed;
    if (bias_at >= lines.size()) {
        return Status{Errc::invalid_argument, "reranker file is truncated: it has no bias line"};
    }
    const auto bias_text = value_after(lines[bias_at], "bias");
    const auto bias = bias_text ? parse_finite(*bias_text) : std::nullopt;
    if (!bias) {
        return bad_line(bias_at, "expected \"bias B\" with a finite number");
    }
    model.bias = *bias;
    std::size_t end_at = bias_at + 1;
    if (end_at < lines.size()) {
        if (const auto depth_text = value_after(lines[end_at], "depth")) {
            std::size_t depth = 0;
            const char* const last = depth_text->data() + depth_text->size();
            const auto read = std::from_chars(depth_text->data(), last, depth);
            if (read.ec != std::errc() || read.ptr != last || depth == 0 || depth > kMaxDepth) {
                return bad_line(end_at,
                                "expected \"depth D\" with D a whole number from 1 to " +
                                    std::to_string(kMaxDepth));
            }
            model.depth = depth;
            ++end_at;
        }
    }
    if (end_at >= lines.size() || lines[end_at] != "end") {
        return Status{Errc::invalid_argument,
                      "reranker file is truncated: it has no closing \"end\" line"};
    }
    if (lines.size() > end_at + 1) {
        return bad_line(end_at + 1, "unexpected text after \"end\"");
    }
    return model;
}

Result<Reranker> Reranker::open(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path, kMaxFileBytes);
    if (!text) {
        return Status{text.status().code(),
                      "reranker " + path.string() + ": " + text.status().message()};
    }
    auto model = parse(text.value());
    if (!model) {
        return Status{model.status().code(), path.string() + ": " + model.status().message()};
    }
    return model;
}

Status Reranker::save(const std::filesystem::path& path) const {
    return detail::write_file_atomically(path, serialize());
}

}  // namespace scout
