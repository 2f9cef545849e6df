// enum_names.cpp: string names of the public enums (ServerStatus, Mode, FusionMethod) and their
// parsers.
#include <cctype>
#include <string>

#include "scout/types.hpp"

namespace scout {

std::string_view server_status_name(ServerStatus status) noexcept {
    switch (status) {
        case ServerStatus::active:
            return "ACTIVE";
        case ServerStatus::degraded:
            return "DEGRADED";
        case ServerStatus::inactive:
            return "INACTIVE";
        case ServerStatus::rejected:
            return "REJECTED";
    }
    return "UNKNOWN";
}

namespace {
bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i]))) {
            return false;
        }
    }
    return true;
}
}  // namespace

std::optional<ServerStatus> parse_server_status(std::string_view text) noexcept {
    for (auto s : {ServerStatus::active,
                   ServerStatus::degraded,
                   ServerStatus::inactive,
                   ServerStatus::rejected}) {
        if (iequals(text, server_status_name(s))) {
            return s;
        }
    }
    return std::nullopt;
}

std::string_view mode_name(Mode mode) noexcept {
    switch (mode) {
        case Mode::hybrid:
            return "hybrid";
        case Mode::bm25:
            return "bm25";
        case Mode::dense:
            return "dense";
    }
    return "unknown";
}

std::optional<Mode> parse_mode(std::string_view text) noexcept {
    for (auto m : {Mode::hybrid, Mode::bm25, Mode::dense}) {
        if (iequals(text, mode_name(m))) {
            return m;
        }
    }
    return std::nullopt;
}

std::string_view fusion_method_name(FusionMethod method) noexcept {
    switch (method) {
        case FusionMethod::rrf:
            return "rrf";
        case FusionMethod::weighted_rrf:
            return "weighted_rrf";
        case FusionMethod::score_blend:
            return "score_blend";
        case FusionMethod::anchored:
            return "anchored";
        case FusionMethod::gated:
            return "gated";
    }
    return "unknown";
}

std::optional<FusionMethod> parse_fusion_method(std::string_view name) noexcept {
    for (FusionMethod m : kFusionMethods) {
        if (name == fusion_method_name(m)) {
            return m;
        }
    }
    return std::nullopt;
}

}  // namespace scout
