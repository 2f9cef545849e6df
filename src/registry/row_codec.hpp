// row_codec.hpp: the registry's rows as bytes: a server in the catalog format, document vectors
// as little-endian float32, and the SHA-256 content hashes that key them. Rows read back from
// the registry are untrusted: every decoder checks what it is given (tests/fuzz).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::detail {

/// SHA-256 of `bytes`, 32 raw bytes.
[[nodiscard]] std::string content_hash(std::string_view bytes);
/// Lowercase hexadecimal of `bytes`.
[[nodiscard]] std::string to_hex(std::string_view bytes);

/// `server` as a catalog document with that one server ({"servers": [...]}), keys sorted, so the
/// same server always gives the same text and content hash.
[[nodiscard]] std::string server_json(const ServerSpec& server);
/// One tool as the catalog format writes it, keys sorted.
[[nodiscard]] std::string tool_json(const ToolSpec& tool);

/// Parses a change row's spec: a catalog document holding exactly one server, named `name`.
/// invalid_argument naming what is wrong otherwise.
[[nodiscard]] Result<ServerSpec> parse_server_row(std::string_view spec, std::string_view name);

[[nodiscard]] std::string encode_vector(std::span<const float> vector);
/// dimension_mismatch unless `bytes` holds exactly `dim` float32 values; corrupt for a NaN or
/// infinite component.
[[nodiscard]] Result<std::vector<float>> decode_vector(std::string_view bytes, std::size_t dim);

}  // namespace scout::detail
