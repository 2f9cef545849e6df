// schema.cpp: the migrations, in order. A migration is a list of statements run in the one
// transaction that also records its version, so a registry is never half-migrated; an advisory
// lock keeps two processes from migrating at once.
#include "registry/schema.hpp"

#include <string>
#include <vector>

#include "scout/registry/registry.hpp"

namespace scout::detail {

namespace {

struct Migration {
    int version;
    std::vector<const char*> statements;
};

// Any number that no other user of the database takes as an advisory lock key.
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(7310431101)";

const std::vector<Migration>& migrations() {
    static const std::vector<Migration> all = {
        {1,
         {
             // The head of the change log: one row, locked by every push, so pushes are
             // serialized and sequence numbers have no holes.
             "CREATE TABLE scout_feed (id integer PRIMARY KEY CHECK (id = 1), "
             "last_seq bigint NOT NULL)",
             "INSERT INTO scout_feed VALUES (1, 0)",
             // Servers and tools as last listed. spec is the server in the catalog format.
             "CREATE TABLE scout_servers (name text PRIMARY KEY, description text NOT NULL, "
             "category text NOT NULL, environment text NOT NULL, state text NOT NULL, "
             "spec text NOT NULL, content_hash bytea NOT NULL, "
             "listed_at timestamptz NOT NULL, changed_seq bigint NOT NULL)",
             "CREATE TABLE scout_tools (server text NOT NULL REFERENCES scout_servers (name) "
             "ON DELETE CASCADE, name text NOT NULL, spec text NOT NULL, "
             "content_hash bytea NOT NULL, PRIMARY KEY (server, name))",
             // Document vectors, once per (model, SHA-256 of the document text) for the fleet.
             "CREATE TABLE scout_models (model_id text PRIMARY KEY, dim integer NOT NULL, "
             "fitted_state bytea NOT NULL, pushed_seq bigint NOT NULL)",
             "CREATE TABLE scout_embeddings (model_id text NOT NULL, content_hash bytea NOT NULL, "
             "vector bytea NOT NULL, added_seq bigint NOT NULL, "
             "PRIMARY KEY (model_id, content_hash))",
             "CREATE INDEX scout_embeddings_added ON scout_embeddings (model_id, added_seq)",
             // The change log: one row per changed server, numbered in the push's transaction.
             "CREATE TABLE scout_changes (seq bigint PRIMARY KEY, server text NOT NULL, "
             "op text NOT NULL CHECK (op IN ('upsert', 'remove', 'vectors')), spec text, "
             "committed_at timestamptz NOT NULL DEFAULT clock_timestamp())",
             // Outcome counts merged across replicas (written by a later version).
             "CREATE TABLE scout_outcomes (server text NOT NULL, tool text NOT NULL, "
             "successes bigint NOT NULL DEFAULT 0, failures bigint NOT NULL DEFAULT 0, "
             "PRIMARY KEY (server, tool))",
         }},
        {2,
         {
             // The builder's fence: every builder takes the next epoch when it starts, and a
             // base is recorded only by the builder holding the newest one.
             "CREATE TABLE scout_builder (id integer PRIMARY KEY CHECK (id = 1), "
             "epoch bigint NOT NULL)",
             "INSERT INTO scout_builder VALUES (1, 0)",
             // Published base index files: the catalog at `seq`, in a directory replicas share.
             "CREATE TABLE scout_bases (generation bigint PRIMARY KEY, seq bigint NOT NULL, "
             "digest text NOT NULL, file_name text NOT NULL, model_id text NOT NULL, "
             "epoch bigint NOT NULL, tools bigint NOT NULL, "
             "published_at timestamptz NOT NULL DEFAULT now())",
         }},
        {3,
         {
             // Outcome events (the learning signal) merged across replicas, numbered in their
             // own sequence: the head row is locked by every append, so the log has no holes.
             "CREATE TABLE scout_outcome_feed (id integer PRIMARY KEY CHECK (id = 1), "
             "last_seq bigint NOT NULL)",
             "INSERT INTO scout_outcome_feed VALUES (1, 0)",
             // terms: the query as analysed by the recording replica, joined by newlines.
             // (replica, local_seq) makes a retried append a no-op.
             "CREATE TABLE scout_outcome_events (seq bigint PRIMARY KEY, replica text NOT NULL, "
             "local_seq bigint NOT NULL, server text NOT NULL, tool text NOT NULL, "
             "terms text NOT NULL, success boolean NOT NULL, "
             "recorded_at timestamptz NOT NULL DEFAULT clock_timestamp())",
             "CREATE INDEX scout_outcome_events_origin ON scout_outcome_events (replica, "
             "local_seq)",
             // The outcome event a base's prior includes, so a replica replays only later ones.
             "ALTER TABLE scout_bases ADD COLUMN outcome_seq bigint NOT NULL DEFAULT 0",
             // The counts table of version 1, which nothing wrote: events replace it.
             "DROP TABLE scout_outcomes",
         }},
    };
    return all;
}

}  // namespace

Result<int> schema_version(PgConnection& conn) {
    auto exists = conn.exec("SELECT to_regclass('scout_schema') IS NOT NULL");
    if (!exists.ok()) {
        return exists.status();
    }
    if (exists->text(0, 0) != "t") {
        return 0;
    }
    auto version = conn.exec("SELECT coalesce(max(version), 0) FROM scout_schema");
    if (!version.ok()) {
        return version.status();
    }
    const auto v = version->number(0, 0);
    if (!v || *v > 1000000) {
        return Status{Errc::corrupt, "registry schema version is not a number"};
    }
    return static_cast<int>(*v);
}

Status check_schema(PgConnection& conn) {
    auto version = schema_version(conn);
    if (!version.ok()) {
        return version.status();
    }
    const int known = registry::kSchemaVersion;
    if (*version == 0) {
        return {Errc::not_found, "registry has no scout schema; run `scout registry init`"};
    }
    if (*version > known) {
        return {Errc::version_unsupported,
                "registry schema is version " + std::to_string(*version) +
                    ", newer than this scout knows (" + std::to_string(known) + "); upgrade scout"};
    }
    if (*version < known) {
        return {Errc::version_unsupported,
                "registry schema is version " + std::to_string(*version) +
                    "; run `scout "
                    "registry init` to migrate it to " +
                    std::to_string(known)};
    }
    return {};
}

Status migrate(PgConnection& conn, int target) {
    return in_transaction(conn, "BEGIN", [&]() -> Status {
        if (Status s = conn.run(kMigrationLock); !s.ok()) {
            return s;
        }
        if (Status s = conn.run("CREATE TABLE IF NOT EXISTS scout_schema (version integer "
                                "PRIMARY KEY, migrated_at timestamptz NOT NULL DEFAULT now())");
            !s.ok()) {
            return s;
        }
        auto version = schema_version(conn);
        if (!version.ok()) {
            return version.status();
        }
        if (*version > registry::kSchemaVersion) {
            return check_schema(conn);
        }
        for (const Migration& m : migrations()) {
            if (m.version <= *version || m.version > target) {
                continue;
            }
            for (const char* statement : m.statements) {
                if (Status s = conn.run(statement); !s.ok()) {
                    return {
                        s.code(),
                        "migration to version " + std::to_string(m.version) + ": " + s.message()};
                }
            }
            if (Status s = conn.run("INSERT INTO scout_schema (version) VALUES ($1)",
                                    {PgParam::number(static_cast<std::uint64_t>(m.version))});
                !s.ok()) {
                return s;
            }
        }
        return {};
    });
}

}  // namespace scout::detail
