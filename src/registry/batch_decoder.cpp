// batch_decoder.cpp: checks first, applies never: the decoder only reads.
#include "registry/batch_decoder.hpp"

#include "registry/row_codec.hpp"

namespace scout::detail {

namespace {

constexpr std::string_view kGap = "gap in the change log: ";

std::string where(const ChangeRow& row) {
    return "registry change " + std::to_string(row.seq) + " (server '" + row.server.substr(0, 256) +
           "'): ";
}

Status decode_vectors(const ChangeBatch& batch, std::size_t dim, DecodedBatch& out) {
    if (batch.vectors.empty()) {
        return {};
    }
    if (!batch.model || batch.model->dim != dim) {
        return {Errc::dimension_mismatch,
                "registry model '" + (batch.model ? batch.model->id : std::string()) + "' has " +
                    std::to_string(batch.model ? batch.model->dim : 0) +
                    " dimensions, the replica's embedder " + std::to_string(dim)};
    }
    for (const VectorRow& row : batch.vectors) {
        if (row.hash.size() != 32) {
            return {Errc::corrupt,
                    "registry vector of model '" + batch.vectors_model +
                        "' has a content hash of " + std::to_string(row.hash.size()) + " bytes"};
        }
        auto vector = decode_vector(row.bytes, dim);
        if (!vector.ok()) {
            return {vector.status().code(),
                    "registry vector " + to_hex(row.hash) + " of model '" + batch.vectors_model +
                        "': " + vector.status().message()};
        }
        out.vectors.emplace_back(row.hash, std::move(vector.value()));
    }
    return {};
}

}  // namespace

bool is_gap(const Status& status) {
    return status.code() == Errc::unavailable && status.message().starts_with(kGap);
}

Result<DecodedBatch> decode_batch(const ChangeBatch& batch,
                                  std::uint64_t applied,
                                  std::size_t dim) {
    DecodedBatch out;
    out.last_seq = batch.full ? batch.head : applied;
    std::uint64_t expected = applied + 1;
    for (const ChangeRow& row : batch.rows) {
        if (!batch.full) {
            if (row.seq <= applied) {
                continue;  // already applied: a duplicate delivery
            }
            if (row.seq != expected) {
                return Status{Errc::unavailable,
                              std::string(kGap) + "expected " + std::to_string(expected) +
                                  ", read " + std::to_string(row.seq)};
            }
            ++expected;
            out.last_seq = row.seq;
        }
        out.empty = false;
        if (row.op == "upsert") {
            if (!row.spec) {
                return Status{Errc::corrupt, where(row) + "an upsert without a spec"};
            }
            auto server = parse_server_row(*row.spec, row.server);
            if (!server.ok()) {
                return Status{server.status().code(), where(row) + server.status().message()};
            }
            out.servers.insert_or_assign(row.server, std::move(server.value()));
        } else if (row.op == "remove") {
            out.servers.insert_or_assign(row.server, std::nullopt);
        } else if (row.op != "vectors") {
            return Status{Errc::corrupt,
                          where(row) + "unknown operation '" + row.op.substr(0, 32) + "'"};
        }
    }
    if (batch.full) {
        out.empty = false;
    }
    if (Status s = decode_vectors(batch, dim, out); !s.ok()) {
        return s;
    }
    return out;
}

}  // namespace scout::detail
