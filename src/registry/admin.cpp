// admin.cpp: `scout registry init` and `status`: create or migrate the schema, and describe
// what the registry holds.
#include <algorithm>
#include <set>
#include <system_error>

#include "scout/registry/registry.hpp"

#include "registry/base_file.hpp"
#include "registry/pg_connection.hpp"
#include "registry/schema.hpp"

namespace scout::registry {
namespace {

/// Removes the bases older than the newest `keep` recorded generations (always keeping the
/// newest one): their records, then their files and manifests in `directory`. A file is
/// removed only when its name is a base file's name and its generation is below every kept
/// one, so a base published while this runs (a higher generation) is never touched.
Result<std::size_t> remove_superseded_bases(detail::PgConnection& conn,
                                            const std::filesystem::path& directory,
                                            std::uint64_t keep) {
    auto kept = conn.exec(
        "SELECT min(generation) FROM (SELECT generation FROM scout_bases "
        "ORDER BY generation DESC LIMIT $1) AS newest",
        {detail::PgParam::number(std::max<std::uint64_t>(keep, 1))});
    if (!kept.ok()) {
        return kept.status();
    }
    if (kept->rows() != 1 || kept->is_null(0, 0)) {
        return std::size_t{0};  // nothing published yet
    }
    const auto oldest_kept = kept->number(0, 0);
    if (!oldest_kept) {
        return Status{Errc::corrupt, "registry base generation is malformed"};
    }
    if (Status s = conn.run("DELETE FROM scout_bases WHERE generation < $1",
                            {detail::PgParam::number(*oldest_kept)});
        !s.ok()) {
        return s;
    }
    std::error_code ec;
    std::set<std::string> doomed;
    for (auto it = std::filesystem::directory_iterator(directory, ec);
         !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto generation = detail::base_file_generation(name);
        if (generation && *generation < *oldest_kept) {
            doomed.insert(name);
        }
    }
    if (ec) {
        return Status{Errc::io_error,
                      "cannot list base directory " + directory.string() + ": " + ec.message()};
    }
    std::size_t removed = 0;
    for (const std::string& name : doomed) {
        // The manifest first: a manifest never names a file that is gone.
        for (const std::string& file : {detail::manifest_name(name), name}) {
            const bool gone = std::filesystem::remove(directory / file, ec);
            if (ec) {
                return Status{Errc::io_error,
                              "cannot remove " + (directory / file).string() + ": " + ec.message()};
            }
            removed += gone && file == name ? 1U : 0U;
        }
    }
    return removed;
}

}  // namespace

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
        // Outcome events: the newest keep_outcome_events, and those a replica joining from
        // the newest base replays plus outcome_margin before it. Appends take the outcome
        // feed's row, so this waits for them.
        auto outcome_head = conn->exec(
            "SELECT last_seq, (SELECT coalesce(max(outcome_seq), 0) FROM scout_bases "
            "WHERE generation = (SELECT max(generation) FROM scout_bases)) "
            "FROM scout_outcome_feed WHERE id = 1 FOR UPDATE");
        if (!outcome_head.ok()) {
            return outcome_head.status();
        }
        const std::uint64_t outcome_last =
            outcome_head->rows() == 1 ? outcome_head->number(0, 0).value_or(0) : 0;
        const std::uint64_t base_outcome =
            outcome_head->rows() == 1 ? outcome_head->number(0, 1).value_or(0) : 0;
        std::uint64_t outcome_cut = outcome_last > options.keep_outcome_events
                                        ? outcome_last - options.keep_outcome_events
                                        : 0;
        if (base_outcome > options.outcome_margin) {
            outcome_cut = std::max(outcome_cut, base_outcome - options.outcome_margin);
        }
        auto outcomes = conn->exec(
            "WITH gone AS (DELETE FROM scout_outcome_events WHERE seq <= $1 RETURNING 1) "
            "SELECT count(*) FROM gone",
            {detail::PgParam::number(outcome_cut)});
        if (!outcomes.ok()) {
            return outcomes.status();
        }
        out.outcome_events_removed = outcomes->number(0, 0).value_or(0);
        out.changes_removed = changes->number(0, 0).value_or(0);
        out.vectors_removed = vectors->number(0, 0).value_or(0);
        out.models_removed = models->number(0, 0).value_or(0);
        return {};
    });
    if (!s.ok()) {
        return s;
    }
    if (!options.base_directory.empty()) {
        auto bases = remove_superseded_bases(*conn, options.base_directory, options.keep_bases);
        if (!bases.ok()) {
            return bases.status();
        }
        out.bases_removed = *bases;
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
