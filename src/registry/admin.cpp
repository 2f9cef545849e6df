// admin.cpp: `scout registry init` and `status`: create or migrate the schema, and describe
// what the registry holds.
#include "scout/registry/registry.hpp"

#include "registry/pg_connection.hpp"
#include "registry/schema.hpp"

namespace scout::registry {

Status init(const ConnectOptions& connect) {
    auto conn = detail::PgConnection::connect(connect);
    if (!conn.ok()) {
        return conn.status();
    }
    return detail::migrate(*conn);
}

Result<GcResult> gc(const ConnectOptions& connect, GcOptions options) {
    auto conn = detail::PgConnection::connect(connect);
    if (!conn.ok()) {
        return conn.status();
    }
    if (Status s = detail::check_schema(*conn); !s.ok()) {
        return s;
    }
    GcResult out;
    Status s = detail::in_transaction(*conn, "BEGIN", [&]() -> Status {
        // The feed row's lock keeps pushes out while the log and the vectors are trimmed.
        auto head = conn->exec("SELECT last_seq FROM scout_feed WHERE id = 1 FOR UPDATE");
        if (!head.ok()) {
            return head.status();
        }
        const std::uint64_t last = head->rows() == 1 ? head->number(0, 0).value_or(0) : 0;
        const std::uint64_t cut = last > options.keep_changes ? last - options.keep_changes : 0;
        auto changes = conn->exec(
            "WITH gone AS (DELETE FROM scout_changes WHERE seq <= $1 "
            "RETURNING 1) SELECT count(*) FROM gone",
            {detail::PgParam::number(cut)});
        if (!changes.ok()) {
            return changes.status();
        }
        auto vectors = conn->exec(
            "WITH latest AS (SELECT model_id FROM scout_models ORDER BY pushed_seq DESC LIMIT 1), "
            "gone AS (DELETE FROM scout_embeddings WHERE model_id NOT IN (SELECT model_id FROM "
            "latest) RETURNING 1) SELECT count(*) FROM gone");
        if (!vectors.ok()) {
            return vectors.status();
        }
        auto models = conn->exec(
            "WITH latest AS (SELECT model_id FROM scout_models ORDER BY pushed_seq DESC LIMIT 1), "
            "gone AS (DELETE FROM scout_models WHERE model_id NOT IN (SELECT model_id FROM "
            "latest) RETURNING 1) SELECT count(*) FROM gone");
        if (!models.ok()) {
            return models.status();
        }
        out.changes_removed = changes->number(0, 0).value_or(0);
        out.vectors_removed = vectors->number(0, 0).value_or(0);
        out.models_removed = models->number(0, 0).value_or(0);
        return {};
    });
    if (!s.ok()) {
        return s;
    }
    return out;
}

Result<RegistryStatus> status(const ConnectOptions& connect) {
    auto conn = detail::PgConnection::connect(connect);
    if (!conn.ok()) {
        return conn.status();
    }
    if (Status s = detail::check_schema(*conn); !s.ok()) {
        return s;
    }
    auto row = conn->exec(
        "SELECT (SELECT last_seq FROM scout_feed WHERE id = 1), "
        "(SELECT count(*) FROM scout_servers), (SELECT count(*) FROM scout_tools), "
        "(SELECT count(*) FROM scout_changes), (SELECT count(*) FROM scout_embeddings), "
        "(SELECT coalesce(max(version), 0) FROM scout_schema), "
        "coalesce((SELECT model_id FROM scout_models ORDER BY pushed_seq DESC LIMIT 1), '')");
    if (!row.ok()) {
        return row.status();
    }
    RegistryStatus out;
    const auto number = [&](int column) { return row->number(0, column).value_or(0); };
    out.head_seq = number(0);
    out.servers = number(1);
    out.tools = number(2);
    out.changes = number(3);
    out.embeddings = number(4);
    out.schema_version = static_cast<int>(number(5));
    out.model_id = std::string(row->text(0, 6));
    return out;
}

}  // namespace scout::registry
