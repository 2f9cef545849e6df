// outcome_log.cpp: see outcome_log.hpp. Appends lock the head row of scout_outcome_feed, so
// every committed prefix of the log is gap-free; a reader that finds a gap knows the rows were
// trimmed, never that they are still in flight.
#include "registry/outcome_log.hpp"

#include "registry/schema.hpp"

namespace scout::detail {

namespace {

/// Bounds on a row, so a row written by something else cannot make a replay huge.
constexpr std::size_t kMaxTerms = 256;
constexpr std::size_t kMaxNameBytes = 1024;

/// A PostgreSQL array literal of text: every element quoted, quotes and backslashes escaped.
std::string text_array(const std::vector<std::string>& items) {
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        out += i == 0 ? "\"" : ",\"";
        for (const char c : items[i]) {
            if (c == '"' || c == '\\') {
                out += '\\';
            }
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

}  // namespace

std::string join_terms(std::span<const std::string> terms) {
    std::string out;
    for (const std::string& t : terms) {
        if (t.empty() || t.find('\n') != std::string::npos) {
            continue;
        }
        if (!out.empty()) {
            out += '\n';
        }
        out += t;
    }
    return out;
}

std::vector<std::string> split_terms(std::string_view joined) {
    std::vector<std::string> out;
    while (!joined.empty()) {
        const std::size_t end = joined.find('\n');
        if (end != 0) {
            out.emplace_back(joined.substr(0, end));
        }
        if (end == std::string_view::npos) {
            break;
        }
        joined.remove_prefix(end + 1);
    }
    return out;
}

std::optional<Catalog::AnalysedOutcome> decode_outcome_row(std::string_view server,
                                                           std::string_view tool,
                                                           std::string_view terms,
                                                           std::string_view success) {
    if (server.empty() || tool.empty() || server.size() > kMaxNameBytes ||
        tool.size() > kMaxNameBytes || (success != "t" && success != "f")) {
        return std::nullopt;
    }
    std::vector<std::string> split = split_terms(terms);
    if (split.size() > kMaxTerms) {
        return std::nullopt;
    }
    return Catalog::AnalysedOutcome{std::move(split),
                                    ToolKey{std::string(server), std::string(tool)},
                                    success == "t" ? Outcome::success : Outcome::failure};
}

Result<std::uint64_t> append_outcomes(PgConnection& conn,
                                      const std::string& replica,
                                      std::span<const PendingOutcome> pending,
                                      std::uint64_t log_cap) {
    std::uint64_t head = 0;
    Status s = in_transaction(conn, "BEGIN", [&]() -> Status {
        auto locked = conn.exec("SELECT last_seq FROM scout_outcome_feed WHERE id = 1 FOR UPDATE");
        if (!locked.ok()) {
            return locked.status();
        }
        head = locked->rows() == 1 ? locked->number(0, 0).value_or(0) : 0;
        auto logged = conn.exec(
            "SELECT coalesce(max(local_seq), 0) FROM scout_outcome_events WHERE replica = $1",
            {PgParam::text(replica)});
        if (!logged.ok()) {
            return logged.status();
        }
        const std::uint64_t done = logged->number(0, 0).value_or(0);
        std::vector<std::string> local, servers, tools, terms, success;
        for (const PendingOutcome& p : pending) {
            if (p.local_seq <= done) {
                continue;  // appended by a try whose commit was not acknowledged
            }
            local.push_back(std::to_string(p.local_seq));
            servers.push_back(p.outcome.tool.server);
            tools.push_back(p.outcome.tool.tool);
            terms.push_back(join_terms(p.outcome.terms));
            success.push_back(p.outcome.outcome == Outcome::success ? "t" : "f");
        }
        if (local.empty()) {
            return {};
        }
        if (Status r = conn.run(
                "INSERT INTO scout_outcome_events (seq, replica, local_seq, server, tool, terms, "
                "success) SELECT $1::bigint + u.ord, $2, u.l, u.s, u.t, u.m, u.ok FROM "
                "unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::boolean[]) "
                "WITH ORDINALITY AS u(l, s, t, m, ok, ord)",
                {PgParam::number(head),
                 PgParam::text(replica),
                 PgParam::text(text_array(local)),
                 PgParam::text(text_array(servers)),
                 PgParam::text(text_array(tools)),
                 PgParam::text(text_array(terms)),
                 PgParam::text(text_array(success))});
            !r.ok()) {
            return r;
        }
        head += local.size();
        if (Status r = conn.run("UPDATE scout_outcome_feed SET last_seq = $1 WHERE id = 1",
                                {PgParam::number(head)});
            !r.ok()) {
            return r;
        }
        if (head > log_cap) {
            if (Status r = conn.run("DELETE FROM scout_outcome_events WHERE seq <= $1",
                                    {PgParam::number(head - log_cap)});
                !r.ok()) {
                return r;
            }
        }
        // Any payload that is not a change's number: followers catch up, their head stays.
        return conn.run("SELECT pg_notify($1, 'outcomes')", {PgParam::text(kFeedChannel)});
    });
    if (!s.ok()) {
        return s;
    }
    return head;
}

Result<OutcomeBatch> read_outcomes(PgConnection& conn, std::uint64_t after, std::size_t limit) {
    // One statement, so the head and the rows come from one snapshot: a head past the rows
    // read then means rows were trimmed, not that later ones committed in between.
    auto rows = conn.exec(
        "SELECT f.last_seq, e.seq, e.server, e.tool, e.terms, e.success "
        "FROM scout_outcome_feed f LEFT JOIN LATERAL (SELECT seq, server, tool, terms, success "
        "FROM scout_outcome_events WHERE seq > $1 ORDER BY seq LIMIT $2) e ON true "
        "WHERE f.id = 1 ORDER BY e.seq",
        {PgParam::number(after), PgParam::number(limit)});
    if (!rows.ok()) {
        return rows.status();
    }
    OutcomeBatch batch;
    if (rows->rows() == 0) {
        return Status{Errc::corrupt, "registry has no outcome feed row"};
    }
    batch.head = rows->number(0, 0).value_or(0);
    batch.last = after;
    for (int r = 0; r < rows->rows(); ++r) {
        if (rows->is_null(r, 1)) {
            break;  // no event after `after`
        }
        const auto seq = rows->number(r, 1);
        if (!seq || *seq <= batch.last) {
            return Status{Errc::corrupt, "registry outcome event with a bad sequence number"};
        }
        batch.missing += *seq - batch.last - 1;
        batch.last = *seq;
        auto event = decode_outcome_row(
            rows->text(r, 2), rows->text(r, 3), rows->text(r, 4), rows->text(r, 5));
        if (!event) {
            ++batch.malformed;
            continue;
        }
        batch.events.push_back(std::move(*event));
    }
    if (batch.events.empty() && batch.malformed == 0 && batch.head > batch.last) {
        // Nothing after `after` is left although the head is past it: trimmed.
        batch.missing += batch.head - batch.last;
        batch.last = batch.head;
    }
    return batch;
}

}  // namespace scout::detail
