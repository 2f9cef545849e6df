// change_feed.cpp: the replica's reads, each in a read-only REPEATABLE READ transaction.
#include "registry/change_feed.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace scout::detail {

namespace {

/// A listing's age in seconds (a float8 column); nullopt for NULL or anything not a finite
/// number, 0 for a listing the registry's clock puts in the future.
std::optional<double> age_column(const PgResult& rows, int row, int column) {
    if (rows.is_null(row, column)) {
        return std::nullopt;
    }
    const std::string_view text = rows.text(row, column);
    double age = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), age);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(age)) {
        return std::nullopt;
    }
    return std::max(age, 0.0);
}

Status read_head(PgConnection& conn, ChangeBatch& batch) {
    auto head = conn.exec("SELECT last_seq FROM scout_feed WHERE id = 1");
    if (!head.ok()) {
        return head.status();
    }
    const auto seq = head->rows() == 1 ? head->number(0, 0) : std::nullopt;
    if (!seq) {
        return {Errc::corrupt, "registry feed row is missing or malformed"};
    }
    batch.head = *seq;
    return {};
}

Status read_model(PgConnection& conn, ChangeBatch& batch) {
    auto model = conn.exec(
        "SELECT model_id, dim, fitted_state FROM scout_models ORDER BY pushed_seq DESC LIMIT 1");
    if (!model.ok()) {
        return model.status();
    }
    if (model->rows() == 1) {
        const auto dim = model->number(0, 1);
        auto state = model->bytes(0, 2);
        if (!dim || !state) {
            return {Errc::corrupt, "registry model row is malformed"};
        }
        batch.model = ModelRow{std::string(model->text(0, 0)), *dim, std::move(*state)};
    }
    return {};
}

Status read_vectors(PgConnection& conn,
                    ChangeBatch& batch,
                    std::uint64_t after,
                    std::uint64_t upto) {
    batch.vectors_model = batch.model->id;
    auto rows = conn.exec(
        "SELECT content_hash, vector FROM scout_embeddings WHERE model_id = $1 AND "
        "added_seq > $2 AND added_seq <= $3",
        {PgParam::text(batch.model->id), PgParam::number(after), PgParam::number(upto)});
    if (!rows.ok()) {
        return rows.status();
    }
    for (int r = 0; r < rows->rows(); ++r) {
        auto hash = rows->bytes(r, 0);
        auto bytes = rows->bytes(r, 1);
        if (!hash || !bytes) {
            return {Errc::corrupt, "registry vector row is malformed"};
        }
        batch.vectors.push_back({std::move(*hash), std::move(*bytes)});
    }
    return {};
}

}  // namespace

Result<ChangeBatch> read_changes(PgConnection& conn,
                                 const FeedPosition& position,
                                 std::uint64_t limit) {
    ChangeBatch batch;
    Status s =
        in_transaction(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&]() -> Status {
            if (Status e = read_head(conn, batch); !e.ok() || batch.head <= position.applied) {
                return e;
            }
            auto rows = conn.exec(
                "SELECT c.seq, c.server, c.op, c.spec, "
                "extract(epoch FROM now() - s.listed_at)::float8 FROM scout_changes c "
                "LEFT JOIN scout_servers s ON s.name = c.server WHERE c.seq > $1 "
                "ORDER BY c.seq LIMIT $2",
                {PgParam::number(position.applied), PgParam::number(limit)});
            if (!rows.ok()) {
                return rows.status();
            }
            for (int r = 0; r < rows->rows(); ++r) {
                const auto seq = rows->number(r, 0);
                if (!seq) {
                    return {Errc::corrupt, "registry change row has a malformed sequence number"};
                }
                ChangeRow row{
                    *seq, std::string(rows->text(r, 1)), std::string(rows->text(r, 2)), {}, {}};
                if (!rows->is_null(r, 3)) {
                    row.spec = std::string(rows->text(r, 3));
                }
                row.listed_age_s = age_column(*rows, r, 4);
                batch.rows.push_back(std::move(row));
            }
            if (!position.wants_vectors || batch.rows.empty()) {
                return {};
            }
            if (Status e = read_model(conn, batch); !e.ok() || !batch.model) {
                return e;
            }
            const bool same = batch.model->id == position.vectors_model;
            return read_vectors(
                conn, batch, same ? position.vectors_upto : 0, batch.rows.back().seq);
        });
    if (!s.ok()) {
        return s;
    }
    return batch;
}

Result<ChangeBatch> read_everything(PgConnection& conn, bool wants_vectors) {
    ChangeBatch batch;
    batch.full = true;
    Status s =
        in_transaction(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&]() -> Status {
            if (Status e = read_head(conn, batch); !e.ok()) {
                return e;
            }
            auto rows = conn.exec(
                "SELECT name, spec, changed_seq, extract(epoch FROM now() - listed_at)::float8 "
                "FROM scout_servers ORDER BY name");
            if (!rows.ok()) {
                return rows.status();
            }
            for (int r = 0; r < rows->rows(); ++r) {
                batch.rows.push_back({rows->number(r, 2).value_or(0),
                                      std::string(rows->text(r, 0)),
                                      "upsert",
                                      std::string(rows->text(r, 1)),
                                      age_column(*rows, r, 3)});
            }
            if (!wants_vectors) {
                return {};
            }
            if (Status e = read_model(conn, batch); !e.ok() || !batch.model) {
                return e;
            }
            return read_vectors(conn, batch, 0, batch.head);
        });
    if (!s.ok()) {
        return s;
    }
    return batch;
}

}  // namespace scout::detail
