// push.cpp: a catalog into the registry. The catalog is committed locally first, through
// RegistryVectors, so every document the registry lacks a vector for is embedded (and only
// those); then one transaction writes the changed servers, their tools, the new vectors, the
// change-log rows and the NOTIFY. The feed row's lock serializes pushes, so sequence numbers are
// handed out without holes, in commit order.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/registry/registry.hpp"

#include "registry/pg_connection.hpp"
#include "registry/push_on.hpp"
#include "registry/registry_vectors.hpp"
#include "registry/row_codec.hpp"
#include "registry/schema.hpp"

namespace scout::registry {

namespace {

using detail::PgConnection;
using detail::PgParam;

/// Vectors written per statement: few round trips, statements of a few MiB at most.
constexpr std::size_t kVectorsPerStatement = 1000;

// The registry's vectors of `hashes` for `model_id`; malformed rows are left out (the document
// is then embedded again, and the row kept as it is).
std::vector<std::pair<std::string, std::vector<float>>> fetch_vectors(
    PgConnection& conn,
    const std::string& model_id,
    std::size_t dim,
    const std::vector<std::string>& hashes) {
    std::string array = "{";
    for (std::size_t i = 0; i < hashes.size(); ++i) {
        if (i > 0) {
            array += ',';
        }
        array += detail::to_hex(hashes[i]);
    }
    array += "}";
    std::vector<std::pair<std::string, std::vector<float>>> found;
    auto rows = conn.exec(
        "SELECT content_hash, vector FROM scout_embeddings WHERE model_id = $1 AND "
        "content_hash = ANY (SELECT decode(h, 'hex') FROM unnest($2::text[]) AS h)",
        {PgParam::text(model_id), PgParam::text(array)});
    if (!rows.ok()) {
        return found;
    }
    for (int r = 0; r < rows->rows(); ++r) {
        auto hash = rows->bytes(r, 0);
        auto bytes = rows->bytes(r, 1);
        if (!hash || !bytes) {
            continue;
        }
        auto vector = detail::decode_vector(*bytes, dim);
        if (vector.ok()) {
            found.emplace_back(std::move(*hash), std::move(vector.value()));
        }
    }
    return found;
}

/// A PostgreSQL array literal of `items` ('{"a","b"}'), every element quoted, so any text
/// (JSON with quotes and backslashes included) goes through one parameter.
std::string array_literal(const std::vector<std::string>& items) {
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        out += i > 0 ? ",\"" : "\"";
        for (const char c : items[i]) {
            if (c == '"' || c == '\\') {
                out += '\\';
            }
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

struct LogWriter {
    PgConnection& conn;
    std::uint64_t seq = 0;

    Status change(const std::string& server, const char* op, const std::string* spec) {
        ++seq;
        return conn.run("INSERT INTO scout_changes (seq, server, op, spec) VALUES ($1, $2, $3, $4)",
                        {PgParam::number(seq),
                         PgParam::text(server),
                         PgParam::text(op),
                         spec != nullptr ? PgParam::text(*spec) : PgParam{{}, false, true}});
    }

    Status upsert(const ServerSpec& server, const std::string& spec, const std::string& hash) {
        if (Status s = change(server.name, "upsert", &spec); !s.ok()) {
            return s;
        }
        Status s = conn.run(
            "INSERT INTO scout_servers (name, description, category, environment, state, spec, "
            "content_hash, listed_at, changed_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8) "
            "ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description, "
            "category = EXCLUDED.category, environment = EXCLUDED.environment, "
            "state = EXCLUDED.state, spec = EXCLUDED.spec, content_hash = EXCLUDED.content_hash, "
            // A server pushed as DEGRADED (its backend is down) keeps the time it was last
            // listed: replicas serve it until degraded_ttl after that.
            "listed_at = CASE WHEN EXCLUDED.state = 'DEGRADED' THEN scout_servers.listed_at "
            "ELSE EXCLUDED.listed_at END, changed_seq = EXCLUDED.changed_seq",
            {PgParam::text(server.name),
             PgParam::text(server.description),
             PgParam::text(server.category),
             PgParam::text(server.environment),
             PgParam::text(std::string(server_status_name(server.status))),
             PgParam::text(spec),
             PgParam::bytes(hash),
             PgParam::number(seq)});
        if (!s.ok()) {
            return s;
        }
        if (s = conn.run("DELETE FROM scout_tools WHERE server = $1", {PgParam::text(server.name)});
            !s.ok()) {
            return s;
        }
        if (server.tools.empty()) {
            return {};
        }
        // Every tool in one statement: a round trip per tool is most of a push's time when the
        // server process waits for a processor.
        std::vector<std::string> names;
        std::vector<std::string> specs;
        std::vector<std::string> hashes;
        for (const ToolSpec& tool : server.tools) {
            names.push_back(tool.name);
            specs.push_back(detail::tool_json(tool));
            hashes.push_back(detail::to_hex(detail::content_hash(specs.back())));
        }
        return conn.run(
            "INSERT INTO scout_tools (server, name, spec, content_hash) SELECT $1, n, s, "
            "decode(h, 'hex') FROM unnest($2::text[], $3::text[], $4::text[]) AS t(n, s, h)",
            {PgParam::text(server.name),
             PgParam::text(array_literal(names)),
             PgParam::text(array_literal(specs)),
             PgParam::text(array_literal(hashes))});
    }
};

}  // namespace

Result<PushResult> push_on(PgConnection& connection,
                           const CatalogSpec& spec,
                           const std::shared_ptr<Embedder>& embedder,
                           const PushOptions& options) {
    PgConnection* const conn = &connection;
    PushResult result;

    // Embed locally what the registry does not hold yet (a full local commit also validates the
    // catalog before anything is written).
    std::shared_ptr<detail::RegistryVectors> vectors;
    if (embedder) {
        vectors = std::make_shared<detail::RegistryVectors>(embedder, true);
        const std::size_t dim = embedder->dim();
        // A commit embeds on several threads; the connection serves one at a time.
        auto guard = std::make_shared<std::mutex>();
        vectors->set_fetcher(
            [conn, dim, guard](const std::string& model, const std::vector<std::string>& hashes) {
                std::lock_guard lock(*guard);
                return fetch_vectors(*conn, model, dim, hashes);
            });
    }
    if (vectors) {
        // The fleet's model: when this embedder is it (or becomes it with the stored fitted
        // state), documents are embedded as every replica's were, and a corpus-fitted embedder
        // is not refitted on this push's servers alone.
        auto model = conn->exec(
            "SELECT model_id, fitted_state FROM scout_models ORDER BY pushed_seq DESC LIMIT 1");
        if (!model.ok()) {
            return model.status();
        }
        if (model->rows() == 1) {
            (void)vectors->pin(std::string(model->text(0, 0)), model->bytes(0, 1).value_or(""));
        }
    }
    auto catalog = Catalog::create({}, vectors);
    if (!catalog.ok()) {
        return catalog.status();
    }
    if (Status s = catalog->upsert_servers(spec); !s.ok()) {
        return s;
    }
    auto committed = catalog->commit();
    if (!committed.ok()) {
        return committed.status();
    }
    if (vectors && !committed->dense_error.empty()) {
        return Status{Errc::unavailable, "cannot embed the catalog: " + committed->dense_error};
    }
    std::vector<std::pair<std::string, std::vector<float>>> embedded;
    if (vectors) {
        embedded = vectors->take_embedded();
        result.model_id = vectors->model_id();
        result.vectors_reused = vectors->reused_count();
        result.vectors_added = embedded.size();
    }

    Status s = detail::in_transaction(*conn, "BEGIN", [&]() -> Status {
        auto head = conn->exec("SELECT last_seq FROM scout_feed WHERE id = 1 FOR UPDATE");
        if (!head.ok()) {
            return head.status();
        }
        const auto start = head->rows() == 1 ? head->number(0, 0) : std::nullopt;
        if (!start) {
            return {Errc::corrupt, "registry feed row is missing or malformed"};
        }
        auto known = conn->exec("SELECT name, content_hash FROM scout_servers");
        if (!known.ok()) {
            return known.status();
        }
        std::map<std::string, std::string, std::less<>> hashes;
        for (int r = 0; r < known->rows(); ++r) {
            hashes.emplace(std::string(known->text(r, 0)), known->bytes(r, 1).value_or(""));
        }
        LogWriter writer{*conn, *start};
        std::set<std::string, std::less<>> pushed;
        for (const ServerSpec& server : spec.servers) {
            pushed.insert(server.name);
            const std::string json = detail::server_json(server);
            const std::string hash = detail::content_hash(json);
            const auto it = hashes.find(server.name);
            if (it != hashes.end() && it->second == hash) {
                ++result.unchanged;
                continue;
            }
            if (Status e = writer.upsert(server, json, hash); !e.ok()) {
                return e;
            }
            ++result.changed;
        }
        if (options.remove_missing) {
            for (const auto& [name, hash] : hashes) {
                if (pushed.contains(name)) {
                    continue;
                }
                if (Status e = writer.change(name, "remove", nullptr); !e.ok()) {
                    return e;
                }
                if (Status e = conn->run("DELETE FROM scout_servers WHERE name = $1",
                                         {PgParam::text(name)});
                    !e.ok()) {
                    return e;
                }
                ++result.removed;
            }
        }
        if (vectors && (!embedded.empty() || writer.seq != *start)) {
            if (writer.seq == *start) {
                // New vectors alone (another model): a row so replicas fetch them.
                if (Status e = writer.change("", "vectors", nullptr); !e.ok()) {
                    return e;
                }
            }
            // Stamped with the push's first number, so a replica reading any row of this push
            // reads its vectors in the same snapshot.
            const std::uint64_t added = *start + 1;
            // In statements of kVectorsPerStatement rows: one round trip each.
            for (std::size_t first = 0; first < embedded.size(); first += kVectorsPerStatement) {
                const std::size_t end = std::min(embedded.size(), first + kVectorsPerStatement);
                std::vector<std::string> hash_hex;
                std::vector<std::string> rows;
                for (std::size_t i = first; i < end; ++i) {
                    hash_hex.push_back(detail::to_hex(embedded[i].first));
                    rows.push_back(detail::to_hex(detail::encode_vector(embedded[i].second)));
                }
                if (Status e = conn->run(
                        "INSERT INTO scout_embeddings (model_id, content_hash, vector, added_seq) "
                        "SELECT $1, decode(h, 'hex'), decode(v, 'hex'), $2 FROM "
                        "unnest($3::text[], $4::text[]) AS t(h, v) ON CONFLICT DO NOTHING",
                        {PgParam::text(result.model_id),
                         PgParam::number(added),
                         PgParam::text(array_literal(hash_hex)),
                         PgParam::text(array_literal(rows))});
                    !e.ok()) {
                    return e;
                }
            }
            if (Status e = conn->run(
                    "INSERT INTO scout_models (model_id, dim, fitted_state, pushed_seq) VALUES "
                    "($1, $2, $3, $4) ON CONFLICT (model_id) DO UPDATE SET dim = EXCLUDED.dim, "
                    "fitted_state = EXCLUDED.fitted_state, pushed_seq = EXCLUDED.pushed_seq",
                    {PgParam::text(result.model_id),
                     PgParam::number(embedder->dim()),
                     PgParam::bytes(vectors->fitted_state()),
                     PgParam::number(added)});
                !e.ok()) {
                return e;
            }
        }
        if (writer.seq != *start) {
            if (Status e = conn->run("UPDATE scout_feed SET last_seq = $1 WHERE id = 1",
                                     {PgParam::number(writer.seq)});
                !e.ok()) {
                return e;
            }
            if (Status e =
                    conn->run("SELECT pg_notify($1, $2)",
                              {PgParam::text(detail::kFeedChannel), PgParam::number(writer.seq)});
                !e.ok()) {
                return e;
            }
        }
        result.head_seq = writer.seq;
        return {};
    });
    if (!s.ok()) {
        return s;
    }
    return result;
}

Result<PushResult> push(const ConnectOptions& connect,
                        const CatalogSpec& spec,
                        std::shared_ptr<Embedder> embedder,
                        PushOptions options) {
    // A writer's first push: one new connection, no retry.
    Writer writer(connect, std::move(embedder));
    return writer.push(spec, options);
}

}  // namespace scout::registry
