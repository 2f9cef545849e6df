// registry_rows_fuzz.cpp: libFuzzer target for what a replica reads from the registry (rows are
// untrusted): change rows (server, operation, spec) and a vector through decode_batch. Byte 0
// picks the dimension; the rest is fields separated by 0x1e, three per change row, and a last
// field that is the vector's bytes. A batch decodes or is refused, never crashes; what decodes
// holds exactly what the rows named, and every server spec written back reads back the same.
// The same fields, four at a time, are also outcome rows (server, tool, terms, success): each
// decodes or is refused, and what decodes names only non-empty terms that survive a round trip.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "registry/batch_decoder.hpp"
#include "registry/outcome_log.hpp"
#include "registry/row_codec.hpp"

namespace {

std::vector<std::string> fields(std::string_view bytes) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= bytes.size(); ++i) {
        if (i == bytes.size() || bytes[i] == '\x1e') {
            out.emplace_back(bytes.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const std::size_t dim = data[0] % 16 + 1;
    const auto parts = fields({reinterpret_cast<const char*>(data) + 1, size - 1});
    scout::detail::ChangeBatch batch;
    batch.model = scout::detail::ModelRow{"model", dim, ""};
    batch.vectors_model = "model";
    std::uint64_t seq = 0;
    for (std::size_t i = 0; i + 3 < parts.size(); i += 3) {
        const std::string& op = parts[i + 1];
        scout::detail::ChangeRow row{++seq, parts[i], op, parts[i + 2], {}};
        if (op == "u") {
            row.op = "upsert";
        } else if (op == "r") {
            row.op = "remove";
            row.spec.reset();
        }
        batch.rows.push_back(std::move(row));
    }
    for (std::size_t i = 0; i + 3 < parts.size(); i += 4) {
        const auto event =
            scout::detail::decode_outcome_row(parts[i], parts[i + 1], parts[i + 2], parts[i + 3]);
        if (!event) {
            continue;
        }
        for (const std::string& term : event->terms) {
            if (term.empty() || term.find('\n') != std::string::npos) {
                __builtin_trap();
            }
        }
        if (scout::detail::split_terms(scout::detail::join_terms(event->terms)) != event->terms ||
            event->tool.server != parts[i] || event->tool.tool != parts[i + 1]) {
            __builtin_trap();
        }
    }
    batch.head = seq;
    batch.vectors.push_back({std::string(32, 'h'), parts.back()});

    auto decoded = scout::detail::decode_batch(batch, 0, dim);
    if (!decoded.ok()) {
        return 0;
    }
    if (decoded->last_seq != seq || decoded->vectors.size() != 1 ||
        decoded->vectors[0].second.size() != dim) {
        __builtin_trap();
    }
    for (const float v : decoded->vectors[0].second) {
        if (!std::isfinite(v)) {
            __builtin_trap();
        }
    }
    for (const auto& [name, server] : decoded->servers) {
        if (!server) {
            continue;
        }
        if (server->name != name) {
            __builtin_trap();
        }
        const std::string json = scout::detail::server_json(*server);
        auto again = scout::detail::parse_server_row(json, name);
        if (!again.ok() || scout::detail::server_json(*again) != json) {
            __builtin_trap();
        }
    }
    return 0;
}
