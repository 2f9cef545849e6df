// outcome_log.hpp: the fleet's outcome events (schema version 3). Every replica appends the
// outcomes it records, numbered in their own sequence, and replays everyone's in that order, so
// every replica's prior is the same function of the same ordered events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/status.hpp"

#include "registry/pg_connection.hpp"

namespace scout::detail {

/// An outcome waiting to be appended: numbered by its replica, so a push retried after its
/// commit went unacknowledged appends nothing twice.
struct PendingOutcome {
    std::uint64_t local_seq = 0;
    Catalog::AnalysedOutcome outcome;
};

/// Appends `pending` (oldest first) to the log in one transaction serialized with other
/// appends, so sequence numbers have no holes; events of `replica` up to the highest local_seq
/// already logged are skipped. Trims the log to its newest `log_cap` events and notifies the
/// feed channel. Returns the new head.
[[nodiscard]] Result<std::uint64_t> append_outcomes(PgConnection& conn,
                                                    const std::string& replica,
                                                    std::span<const PendingOutcome> pending,
                                                    std::uint64_t log_cap);

struct OutcomeBatch {
    std::uint64_t head = 0;  ///< the log's head when read
    std::uint64_t last = 0;  ///< the last sequence number read (0 when none)
    /// Events between the position and the first row read that the log no longer holds.
    std::uint64_t missing = 0;
    /// Rows whose fields are not an outcome (written by something else): skipped everywhere.
    std::uint64_t malformed = 0;
    std::vector<Catalog::AnalysedOutcome> events;  ///< in sequence order
};

/// The events after `after`, at most `limit`, oldest first.
[[nodiscard]] Result<OutcomeBatch> read_outcomes(PgConnection& conn,
                                                 std::uint64_t after,
                                                 std::size_t limit);

/// One row of the log as read (untrusted: anything may have written it): the outcome, or
/// nullopt when a field is empty, too long, or not what an append writes.
[[nodiscard]] std::optional<Catalog::AnalysedOutcome> decode_outcome_row(std::string_view server,
                                                                         std::string_view tool,
                                                                         std::string_view terms,
                                                                         std::string_view success);

/// Terms as stored: joined by newlines (the analyser never yields one inside a term).
[[nodiscard]] std::string join_terms(std::span<const std::string> terms);
[[nodiscard]] std::vector<std::string> split_terms(std::string_view joined);

}  // namespace scout::detail
