// status.cpp: the names of error codes and the text of a Status.
#include "scout/status.hpp"

#include <cstdio>
#include <cstdlib>

namespace scout {

std::string_view errc_name(Errc code) noexcept {
    switch (code) {
        case Errc::ok:
            return "ok";
        case Errc::invalid_argument:
            return "invalid_argument";
        case Errc::not_found:
            return "not_found";
        case Errc::io_error:
            return "io_error";
        case Errc::corrupt:
            return "corrupt";
        case Errc::version_unsupported:
            return "version_unsupported";
        case Errc::embedder_mismatch:
            return "embedder_mismatch";
        case Errc::dimension_mismatch:
            return "dimension_mismatch";
        case Errc::unavailable:
            return "unavailable";
        case Errc::internal:
            return "internal";
    }
    return "unknown";
}

std::string Status::to_string() const {
    if (ok()) {
        return "ok";
    }
    return std::string(errc_name(code_)) + ": " + message_;
}

void abort_bad_result_access(const Status& status) noexcept {
    std::fprintf(
        stderr, "scout: Result::value() called on an error: %s\n", status.to_string().c_str());
    std::abort();
}

}  // namespace scout
