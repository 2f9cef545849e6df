// batch_decoder.hpp: a batch of registry rows (untrusted) to the changes a replica applies:
// duplicates dropped, a gap refused, every spec and vector checked before anything is applied,
// so a bad row leaves the replica's catalog as it was.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scout/status.hpp"
#include "scout/types.hpp"

#include "registry/change_feed.hpp"

namespace scout::detail {

struct DecodedBatch {
    std::uint64_t last_seq = 0;  ///< the replica stands here once the batch is applied
    bool empty = true;           ///< nothing new (every row at or below `applied`)
    /// The final state of each server the batch touches: its spec, or nullopt when removed.
    std::map<std::string, std::optional<ServerSpec>, std::less<>> servers;
    std::vector<std::pair<std::string, std::vector<float>>> vectors;
};

/// Errors: unavailable with "gap" when the first new row is not applied + 1 or the rows skip a
/// number (the caller refills); corrupt or invalid_argument, naming the sequence number and the
/// server, for a malformed row; dimension_mismatch or corrupt for a bad vector (`dim` is the
/// replica's embedder's; a model row of another dimension is refused).
[[nodiscard]] Result<DecodedBatch> decode_batch(const ChangeBatch& batch,
                                                std::uint64_t applied,
                                                std::size_t dim);

/// True when `status` is decode_batch's gap error.
[[nodiscard]] bool is_gap(const Status& status);

}  // namespace scout::detail
