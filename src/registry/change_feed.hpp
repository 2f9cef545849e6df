// change_feed.hpp: what a replica reads from the registry, as raw rows (untrusted until decoded),
// each batch from one snapshot of the database so its changes and vectors agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scout/status.hpp"

#include "registry/pg_connection.hpp"

namespace scout::detail {

struct ChangeRow {
    std::uint64_t seq = 0;
    std::string server;
    std::string op;  ///< "upsert", "remove" or "vectors"
    std::optional<std::string> spec;
    /// Seconds since the server was last listed (scout_servers.listed_at), by the registry's
    /// clock when the batch was read; nullopt when the registry no longer holds the server.
    std::optional<double> listed_age_s;
};

struct VectorRow {
    std::string hash;
    std::string bytes;
};

struct ModelRow {
    std::string id;
    std::uint64_t dim = 0;
    std::string fitted_state;
};

/// A run of the change log, or (full) the whole registry as of `head`: then `rows` holds one
/// upsert per server and every server not among them is gone.
struct ChangeBatch {
    std::uint64_t head = 0;  ///< the registry's last sequence number in this snapshot
    bool full = false;
    std::vector<ChangeRow> rows;
    std::optional<ModelRow> model;  ///< the model of the latest push with vectors
    std::string vectors_model;      ///< the model `vectors` belong to
    std::vector<VectorRow> vectors;
};

/// Where the replica stands, for the read.
struct FeedPosition {
    std::uint64_t applied = 0;
    std::string vectors_model;  ///< the model whose vectors were read up to vectors_upto
    std::uint64_t vectors_upto = 0;
    bool wants_vectors = false;
};

/// Up to `limit` changes after position.applied, with the vectors stamped in the same range
/// (all of a model's vectors when the registry's model is not position.vectors_model).
[[nodiscard]] Result<ChangeBatch> read_changes(PgConnection& conn,
                                               const FeedPosition& position,
                                               std::uint64_t limit);
/// Every server as the registry holds it now, with every vector of its model.
[[nodiscard]] Result<ChangeBatch> read_everything(PgConnection& conn, bool wants_vectors);

}  // namespace scout::detail
