/* scout_registry.h: the PostgreSQL registry (docs/scale-out.md) through the C ABI: a catalog
   that follows a registry (a replica), its position, and read-your-writes searches. The rules
   of scout.h hold here too (statuses, scout_last_error, strings freed with scout_string_free,
   NULL checks). Built when libpq is found, in the static library scout_registry_c, which holds
   all of scout.h as well: a program links it instead of libscout, not beside it.

   replica options (scout_replica_open): the catalog options of scout_catalog_create
   ("embedder", "query_cache", "options"), plus an optional "registry" object, every key
   optional:
       "password_file": PATH     a file whose first line is the password (else libpq reads
                                 PGPASSWORD or PGPASSFILE; a URL carrying a password is
                                 SCOUT_INVALID_ARGUMENT)
       "connect_timeout_ms": N   (1..600000, default 5000)
       "statement_timeout_ms": N (1..600000, default 10000)
       "poll_interval_ms": N     re-read of the head without a notification (10..600000,
                                 default 1000)
       "degraded_ttl_s": N       how long a server the registry holds as DEGRADED stays in
                                 search after its last listing (1..2592000, default 86400)
   The embedder must be the one the fleet pushes with (its vectors are taken from the
   registry). */
#ifndef SCOUT_SCOUT_REGISTRY_H
#define SCOUT_SCOUT_REGISTRY_H

#include <stdint.h>

#include "scout/scout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this header is C99, which has no `using`. */
/** A catalog that follows a registry's change log in a background thread. */
typedef struct scout_replica scout_replica;
/* NOLINTEND(modernize-use-using) */

/** Opens a replica of the registry at `url` (a libpq URI or key=value string, without a
    password), catches up with its head once, then follows it in a background thread.
    `options_json` is optional. SCOUT_UNAVAILABLE when the registry cannot be reached or refuses
    the credentials; SCOUT_VERSION_UNSUPPORTED for a registry written by newer code. */
SCOUT_API scout_status scout_replica_open(const char* url,
                                          const char* options_json,
                                          scout_replica** out);
/** Stops the follower and releases the replica. NULL is ignored. */
SCOUT_API void scout_replica_free(scout_replica* replica);
/** The replica's position: {"applied_seq", "head_seq", "lag" (head - applied, 0 when caught
    up), "batches", "gaps", "resyncs", "notifications", "reconnects", "failures",
    "vectors_fetched", "model_id", "degraded_served": [server names], "degraded_expired",
    "last_error", and the shared learning's "outcome_seq", "outcome_head_seq",
    "outcomes_recorded", "outcomes_pushed", "outcomes_dropped", "outcomes_queued",
    "outcome_events_applied", "outcome_events_skipped"}. */
SCOUT_API scout_status scout_replica_status(const scout_replica* replica, char** status_json);
/** Searches the replica's catalog once it has applied change `min_seq` (read-your-writes: the
    head_seq a push returned), waiting at most `timeout_ms` (0..600000) for it; SCOUT_UNAVAILABLE,
    naming both numbers, when it passes first. `min_seq` 0 searches at once. `options_json` and
    the result are those of scout_catalog_search. */
SCOUT_API scout_status scout_replica_search(const scout_replica* replica,
                                            const char* query,
                                            const char* options_json,
                                            uint64_t min_seq,
                                            uint32_t timeout_ms,
                                            char** result_json);
/** Learning shared by the fleet: the host ran `server`/`tool` for `query` with this outcome
    (`succeeded` non-zero: success). Checked as scout_catalog_record_outcome
   (SCOUT_INVALID_ARGUMENT, SCOUT_NOT_FOUND), then queued and appended to the registry by the
   follower; every replica's prior changes when the event comes back through the registry. Never
   waits for the registry: an outcome over the queue's bound or the replica's rate is dropped and
   counted
    ("outcomes_dropped" of scout_replica_status). */
SCOUT_API scout_status scout_replica_record_outcome(
    scout_replica* replica, const char* query, const char* server, const char* tool, int succeeded);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCOUT_SCOUT_REGISTRY_H */
