// base_builder.cpp: publish the catalog as a base index file, fenced by the builder's epoch.
// The file is written and hashed before the transaction; inside it the epoch is checked under
// the builder row's lock, the generation is taken, the file renamed to its final name and the
// base recorded, so a stale builder never records a base and its files are removed.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <system_error>

#include <nlohmann/json.hpp>

#include "registry/base_file.hpp"
#include "registry/pg_connection.hpp"
#include "registry/replica_impl.hpp"
#include "registry/schema.hpp"

namespace scout::registry {

namespace {

using detail::PgConnection;
using detail::PgParam;

Result<PgConnection> connect_for_base(const ConnectOptions& connect) {
    auto conn = PgConnection::connect(connect);
    if (!conn.ok()) {
        return conn.status();
    }
    if (Status s = detail::check_schema(*conn); !s.ok()) {
        return s;
    }
    return conn;
}

std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char text[32] = {};
    (void)std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string manifest_json(const PublishedBase& base) {
    const nlohmann::json out = {{"generation", base.generation},
                                {"seq", base.seq},
                                {"digest", base.digest},
                                {"file", base.file_name},
                                {"model_id", base.model_id},
                                {"epoch", base.epoch},
                                {"tools", base.tools},
                                {"outcome_seq", base.outcome_seq},
                                {"created", utc_now()}};
    return out.dump(2) + "\n";
}

}  // namespace

Result<std::unique_ptr<BaseBuilder>> BaseBuilder::start(BuilderOptions options,
                                                        std::shared_ptr<Embedder> embedder) {
    if (options.directory.empty()) {
        return Status{Errc::invalid_argument, "a base directory is required"};
    }
    std::error_code ec;
    std::filesystem::create_directories(options.directory, ec);
    if (ec || !std::filesystem::is_directory(options.directory)) {
        return Status{Errc::io_error,
                      "base directory " + options.directory.string() + " cannot be used" +
                          (ec ? ": " + ec.message() : std::string())};
    }
    // The builder follows the log from 0, never from a base of its own making.
    options.replica.base_directory.clear();
    auto replica = Replica::create(options.replica, std::move(embedder));
    if (!replica.ok()) {
        return replica.status();
    }
    auto conn = connect_for_base(options.replica.connect);
    if (!conn.ok()) {
        return conn.status();
    }
    auto epoch =
        conn->exec("UPDATE scout_builder SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch");
    if (!epoch.ok()) {
        return epoch.status();
    }
    const auto taken = epoch->rows() == 1 ? epoch->number(0, 0) : std::nullopt;
    if (!taken) {
        return Status{Errc::corrupt, "registry has no builder row (scout_builder)"};
    }
    return std::unique_ptr<BaseBuilder>(
        new BaseBuilder(std::move(options), std::move(replica.value()), *taken));
}

BaseBuilder::BaseBuilder(BuilderOptions options,
                         std::unique_ptr<Replica> replica,
                         std::uint64_t epoch)
    : options_(std::move(options)), replica_(std::move(replica)), epoch_(epoch) {}

BaseBuilder::~BaseBuilder() = default;

Result<PublishedBase> BaseBuilder::publish() {
    if (Status s = replica_->sync(); !s.ok()) {
        return s;
    }
    Replica::Impl& impl = detail::ReplicaAccess::impl(*replica_);
    PublishedBase base;
    base.epoch = epoch_;
    const std::filesystem::path temp =
        options_.directory /
        (".base-epoch" + std::to_string(epoch_) + "-" + std::to_string(::getpid()) + ".scout");
    {
        // No follower runs in a builder; the lock keeps a concurrent sync() out of the save.
        std::lock_guard lock(impl.apply_mutex);
        base.seq = impl.applied.load();
        base.outcome_seq = impl.outcome_applied;
        if (Status s = impl.catalog.save(temp); !s.ok()) {
            return s;
        }
    }
    const auto remove_quietly = [](const std::filesystem::path& p) {
        std::error_code ignored;
        std::filesystem::remove(p, ignored);
    };
    auto info = inspect_index_file(temp);
    auto digest = info.ok() ? detail::file_sha256_hex(temp) : Result<std::string>(info.status());
    if (!digest.ok()) {
        remove_quietly(temp);
        return digest.status();
    }
    base.digest = *digest;
    base.model_id = info->model_id;
    base.tools = info->tools;

    auto conn = connect_for_base(options_.replica.connect);
    if (!conn.ok()) {
        remove_quietly(temp);
        return conn.status();
    }
    std::filesystem::path final_path;
    std::filesystem::path manifest_path;
    Status s = detail::in_transaction(*conn, "BEGIN", [&]() -> Status {
        auto newest = conn->exec("SELECT epoch FROM scout_builder WHERE id = 1 FOR UPDATE");
        if (!newest.ok()) {
            return newest.status();
        }
        const std::uint64_t current = newest->rows() == 1 ? newest->number(0, 0).value_or(0) : 0;
        if (current != epoch_) {
            return {Errc::unavailable,
                    "base not published: this builder's epoch " + std::to_string(epoch_) +
                        " is stale, builder epoch " + std::to_string(current) +
                        " has started since; only the newest builder publishes"};
        }
        auto next = conn->exec("SELECT coalesce(max(generation), 0) + 1 FROM scout_bases");
        if (!next.ok()) {
            return next.status();
        }
        base.generation = next->number(0, 0).value_or(1);
        base.file_name = detail::base_file_name(base.generation, base.digest);
        final_path = options_.directory / base.file_name;
        manifest_path = options_.directory / detail::manifest_name(base.file_name);
        if (Status r = detail::rename_durably(temp, final_path); !r.ok()) {
            return r;
        }
        if (Status w = detail::write_durably(manifest_path, manifest_json(base)); !w.ok()) {
            return w;
        }
        return conn->run(
            "INSERT INTO scout_bases (generation, seq, digest, file_name, model_id, epoch, "
            "tools, outcome_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            {PgParam::number(base.generation),
             PgParam::number(base.seq),
             PgParam::text(base.digest),
             PgParam::text(base.file_name),
             PgParam::text(base.model_id),
             PgParam::number(base.epoch),
             PgParam::number(base.tools),
             PgParam::number(base.outcome_seq)});
    });
    if (!s.ok()) {
        remove_quietly(temp);
        if (!final_path.empty()) {
            remove_quietly(final_path);
            remove_quietly(manifest_path);
        }
        return s;
    }
    return base;
}

Result<PublishedBase> latest_base(const ConnectOptions& connect) {
    auto conn = connect_for_base(connect);
    if (!conn.ok()) {
        return conn.status();
    }
    auto rows = conn->exec(
        "SELECT generation, seq, digest, file_name, model_id, epoch, tools, outcome_seq "
        "FROM scout_bases "
        "ORDER BY generation DESC LIMIT 1");
    if (!rows.ok()) {
        return rows.status();
    }
    if (rows->rows() == 0) {
        return Status{Errc::not_found, "no base has been published"};
    }
    PublishedBase base;
    base.generation = rows->number(0, 0).value_or(0);
    base.seq = rows->number(0, 1).value_or(0);
    base.digest = std::string(rows->text(0, 2));
    base.file_name = std::string(rows->text(0, 3));
    base.model_id = std::string(rows->text(0, 4));
    base.epoch = rows->number(0, 5).value_or(0);
    base.tools = rows->number(0, 6).value_or(0);
    base.outcome_seq = rows->number(0, 7).value_or(0);
    return base;
}

}  // namespace scout::registry
