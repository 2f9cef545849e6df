// config_errors.hpp: how the gateway's file parsers (config, auth, embedder options, JWKS) word a
// value they refuse, alike in every file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "scout/status.hpp"

namespace scout::gateway {

/// invalid_argument, "<where>: <what>": where names the value (a key path, a file).
[[nodiscard]] inline Status config_error(const std::string& where, const std::string& what) {
    return Status{Errc::invalid_argument, where + ": " + what};
}

/// " (got <JSON type>)", for a message about a value of the wrong type.
[[nodiscard]] inline std::string got_type(const nlohmann::json& value) {
    return " (got " + std::string(value.type_name()) + ")";
}

}  // namespace scout::gateway
