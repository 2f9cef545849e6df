// registry.hpp: one catalog shared by many scout processes through PostgreSQL (target
// scout::registry, built when libpq is found). A writer pushes a catalog into the registry (its
// servers and tools, the document vectors, one change-log row per changed server, all in one
// transaction); a Replica follows the change log into its own Catalog through incremental
// commits and takes document vectors from the registry instead of embedding them.
// docs/scale-out.md describes the design and its failure modes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scout/catalog.hpp"
#include "scout/embedder.hpp"
#include "scout/options.hpp"
#include "scout/status.hpp"
#include "scout/types.hpp"

namespace scout::detail {
struct ReplicaAccess;  // tests reach the replica's state through it
}

namespace scout::registry {

/// The schema version this code creates and reads; a registry of a newer version is refused.
/// Version 2 added the builder epoch and the published bases (scout_builder, scout_bases);
/// version 3 the outcome events shared by replicas (scout_outcome_feed, scout_outcome_events).
inline constexpr int kSchemaVersion = 3;

/// How to reach the registry. The password is never part of `url`: libpq reads PGPASSWORD or
/// PGPASSFILE (~/.pgpass), or it is read from `password_file`.
struct ConnectOptions {
    std::string url;  ///< a libpq URI or key=value string, e.g. postgresql://scout@db:5432/scout
    std::string password_file;  ///< optional: a file whose first line is the password
    std::chrono::milliseconds connect_timeout{5000};
    /// Bound on every statement, enforced by the server (statement_timeout) and by the client.
    std::chrono::milliseconds statement_timeout{10000};
};

/// invalid_argument when `url` carries a password (it would show in process listings and
/// logs); ok otherwise, also for URLs libpq will reject later.
[[nodiscard]] Status check_url(const std::string& url);

/// Creates the schema, or migrates an older one to kSchemaVersion, in one transaction.
/// version_unsupported for a registry written by newer code; unavailable when the server cannot
/// be reached or refuses the credentials.
[[nodiscard]] Status init(const ConnectOptions& connect);

struct RegistryStatus {
    int schema_version = 0;
    std::uint64_t head_seq = 0;  ///< the sequence number of the last change
    std::size_t servers = 0;
    std::size_t tools = 0;
    std::size_t changes = 0;     ///< rows of the change log
    std::size_t embeddings = 0;  ///< document vectors, all models
    std::string model_id;        ///< the model of the last push that carried vectors
};

[[nodiscard]] Result<RegistryStatus> status(const ConnectOptions& connect);

struct GcOptions {
    /// The most recent changes kept in the log. A replica further behind than this catches up
    /// with one full read of the registry instead of the log.
    std::uint64_t keep_changes = 10000;
    /// The directory bases are published in (BuilderOptions::directory); empty: bases are left
    /// alone. With it, the base files and manifests of every generation older than the newest
    /// `keep_bases` recorded ones are removed, with their records. The newest recorded base,
    /// the one replicas open, is always kept (also with keep_bases 0).
    std::filesystem::path base_directory;
    std::uint64_t keep_bases = 2;
    /// Outcome events: at most this many of the newest are kept (also enforced by every
    /// append, ReplicaOptions::outcome_log_cap).
    std::uint64_t keep_outcome_events = 100000;
    /// With a published base, the events up to its outcome sequence are in its prior: those
    /// older than this many before it are removed too, so the log holds what a replica joining
    /// from the newest base replays plus a margin for replicas a little behind.
    std::uint64_t outcome_margin = 1000;
};

struct GcResult {
    std::size_t changes_removed = 0;
    std::size_t vectors_removed = 0;  ///< vectors of models other than the latest
    std::size_t models_removed = 0;
    std::size_t bases_removed = 0;  ///< base files removed (each with its manifest)
    std::size_t outcome_events_removed = 0;
};

/// Trims the change log to its last `keep_changes` rows and drops the vectors of every model but
/// the latest pushed one, in one transaction serialized with pushes; then, with a base
/// directory, removes superseded bases.
[[nodiscard]] Result<GcResult> gc(const ConnectOptions& connect, GcOptions options = {});

struct PushOptions {
    /// Servers in the registry but not in the pushed catalog are removed (a full listing).
    /// Off: the push only adds and replaces.
    bool remove_missing = false;
};

struct PushResult {
    std::uint64_t head_seq = 0;      ///< the registry's last sequence number after the push
    std::size_t changed = 0;         ///< servers added or replaced (new change-log rows)
    std::size_t unchanged = 0;       ///< servers whose content hash was already there
    std::size_t removed = 0;         ///< servers removed (remove_missing)
    std::size_t vectors_added = 0;   ///< documents embedded by this push
    std::size_t vectors_reused = 0;  ///< documents whose vector the registry already held
    std::string model_id;
};

/// Pushes `spec` into the registry in one transaction: servers, tools, the vectors of documents
/// the registry does not hold yet (embedded here with `embedder`, which may be null for a
/// BM25-only fleet), one change-log row per changed server and a NOTIFY carrying the new head.
/// Concurrent pushes are serialized by the registry, so sequence numbers have no holes.
[[nodiscard]] Result<PushResult> push(const ConnectOptions& connect,
                                      const CatalogSpec& spec,
                                      std::shared_ptr<Embedder> embedder,
                                      PushOptions options = {});

/// A writer that pushes many times: it keeps its connection between pushes (a new connection is
/// a server process PostgreSQL forks, which is most of a small push's time), so a push costs its
/// transaction alone. When the kept connection broke (the server restarted, a statement timed
/// out), push() connects again and pushes once more on the new connection; that retry is safe
/// because a push of servers whose content the registry already holds changes nothing. One push
/// at a time: concurrent calls wait for each other.
class Writer {
public:
    /// Connects lazily: the first push() opens the connection.
    Writer(ConnectOptions connect, std::shared_ptr<Embedder> embedder);
    ~Writer();
    Writer(Writer&&) noexcept;
    Writer& operator=(Writer&&) noexcept;
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    /// registry::push on the kept connection. When a retried push's first try had committed,
    /// the retry reports the servers as unchanged and the head as head_seq.
    [[nodiscard]] Result<PushResult> push(const CatalogSpec& spec, PushOptions options = {});
    /// Connections opened so far (1 while the first one lasts).
    [[nodiscard]] std::size_t connections() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct ReplicaOptions {
    ConnectOptions connect;
    CatalogOptions catalog;
    /// The follower re-reads the head this often even without a notification, so a lost
    /// NOTIFY costs at most this much staleness.
    std::chrono::milliseconds poll_interval{1000};
    /// Waits between reconnection attempts double from min to max.
    std::chrono::milliseconds reconnect_min{100};
    std::chrono::milliseconds reconnect_max{5000};
    std::size_t batch_rows = 1000;  ///< change-log rows read per batch
    /// A server the registry holds as DEGRADED (its backend is down) is still searched here,
    /// from its last listing, until this long after that listing (listed_at), then leaves
    /// search. Its age is measured by the registry's clock, so replicas' clocks do not matter.
    std::chrono::seconds degraded_ttl{std::chrono::hours(24)};
    /// The directory builders publish base index files into (BaseBuilder). When set, the first
    /// catch-up opens the newest published base, verified by its SHA-256, and replays the log
    /// from its sequence number, so nothing it holds is embedded or read again. A base that is
    /// missing, damaged or of another model is refused (ReplicaStats::base_error) and the
    /// replica reads from sequence 0. Empty: always from sequence 0.
    std::filesystem::path base_directory;
    /// Shared learning (record_outcome): outcomes waiting to be appended to the registry; past
    /// this many, new ones are dropped (ReplicaStats::outcomes_dropped).
    std::size_t outcome_queue = 1024;
    /// Outcomes this replica appends per second at most, the excess dropped, so one replica
    /// (or a client driving it) cannot flood the fleet's log.
    double outcome_rate = 100;
    std::size_t outcome_batch = 256;  ///< outcomes appended per transaction, events read per batch
    /// Every append trims the registry's outcome log to this many newest events.
    std::uint64_t outcome_log_cap = 100000;
};

struct ReplicaStats {
    std::uint64_t applied_seq = 0;  ///< every change up to this one is in the catalog
    std::uint64_t head_seq = 0;     ///< the registry's head when last seen
    std::uint64_t batches = 0;      ///< batches committed into the catalog
    std::uint64_t gaps = 0;         ///< batches that did not start right after applied_seq
    std::uint64_t resyncs = 0;  ///< full reads of the registry (the log no longer had a gap's rows)
    std::uint64_t notifications = 0;
    std::uint64_t reconnects = 0;
    std::uint64_t failures = 0;       ///< attempts that failed (the catalog kept its state)
    std::size_t vectors_fetched = 0;  ///< document vectors read from the registry
    std::string model_id;             ///< the registry model whose vectors are used
    /// Servers the registry holds as DEGRADED that are searched here (within degraded_ttl).
    std::vector<std::string> degraded_served;
    std::uint64_t degraded_expired = 0;  ///< DEGRADED servers that left search at their TTL
    std::string last_error;              ///< the last failure, empty once an attempt succeeds
    std::uint64_t base_generation = 0;   ///< the published base started from; 0 for none
    std::uint64_t base_seq = 0;          ///< that base's sequence number
    std::string base_error;              ///< why the newest base was refused, if it was
    /// Shared learning: every outcome event up to this one is in the catalog's prior.
    std::uint64_t outcome_seq = 0;
    std::uint64_t outcome_head_seq = 0;        ///< the outcome log's head when last seen
    std::uint64_t outcome_base_seq = 0;        ///< the outcome event the starting base included
    std::uint64_t outcomes_recorded = 0;       ///< record_outcome calls accepted into the queue
    std::uint64_t outcomes_pushed = 0;         ///< of those, appended to the registry
    std::uint64_t outcomes_dropped = 0;        ///< refused: queue full or over outcome_rate
    std::size_t outcomes_queued = 0;           ///< waiting to be appended now
    std::uint64_t outcome_events_applied = 0;  ///< events of every replica replayed here
    /// Events the log no longer held when this replica reached them (trimmed), or rows that
    /// were not outcomes: skipped, so this prior can differ from its peers' until they decay.
    std::uint64_t outcome_events_skipped = 0;
};

/// A Catalog that follows the registry. Thread-safe: searcher(), applied_seq(), wait_for() and
/// stats() may be called from any thread while the follower runs.
class Replica {
public:
    /// `embedder` embeds queries (and, only when the registry lacks a vector, documents); may be
    /// null for BM25 only. Does not connect: sync() or start() do.
    [[nodiscard]] static Result<std::unique_ptr<Replica>> create(
        ReplicaOptions options, std::shared_ptr<Embedder> embedder = nullptr);
    ~Replica();
    Replica(const Replica&) = delete;
    Replica& operator=(const Replica&) = delete;

    /// Catches up with the registry's head on the calling thread (unless the follower runs).
    /// On error the catalog keeps its last good state and the next call retries.
    [[nodiscard]] Status sync();
    /// Starts the follower thread: LISTEN, catch up, then catch up again on every notification,
    /// every poll_interval and after every reconnection. Idempotent.
    void start();
    /// Stops the follower thread (bounded by the statement timeout). Idempotent.
    void stop();
    /// Called with the new applied sequence number after each batch is committed, and with the
    /// same number when DEGRADED servers leave search at their TTL, on the thread that changed
    /// the catalog (the follower or a sync() caller); it must be quick and must not call
    /// sync(). Set it before start().
    void set_on_applied(std::function<void(std::uint64_t seq)> on_applied);

    /// Learning shared by the fleet: checked and analysed as Catalog::record_outcome (same
    /// errors), then queued and appended to the registry's outcome log by the next catch-up.
    /// The prior changes here, as on every replica, when the event comes back through the log
    /// in sequence order, so every replica's prior is the same function of the same events.
    /// Never waits for the registry: with the queue full or past outcome_rate the outcome is
    /// dropped (ok, counted in ReplicaStats::outcomes_dropped).
    [[nodiscard]] Status record_outcome(std::string_view query,
                                        const ToolKey& tool,
                                        Outcome outcome);

    [[nodiscard]] Searcher searcher() const;
    /// The catalog the replica writes, for a host that reads it (searcher(), events, outcomes).
    /// Its servers are the registry's: a host that upserts into it is overwritten by the next
    /// change of that server.
    [[nodiscard]] Catalog& catalog();
    [[nodiscard]] std::uint64_t applied_seq() const;
    /// Read-your-writes: true once applied_seq() >= seq, false when `timeout` passes first.
    [[nodiscard]] bool wait_for(std::uint64_t seq, std::chrono::milliseconds timeout) const;
    /// A searcher that sees at least change `seq` (wait_for, then searcher()); unavailable,
    /// naming both numbers, when `timeout` passes first.
    [[nodiscard]] Result<Searcher> searcher_at(std::uint64_t seq,
                                               std::chrono::milliseconds timeout) const;
    [[nodiscard]] ReplicaStats stats() const;

    struct Impl;

private:
    friend struct scout::detail::ReplicaAccess;
    explicit Replica(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// A base index file as published: the catalog at sequence `seq`, named by its generation and
/// the SHA-256 of its bytes.
struct PublishedBase {
    std::uint64_t generation = 0;   ///< 1, 2, ... in publication order, for the whole registry
    std::uint64_t seq = 0;          ///< every change up to this one is in the file
    std::string digest;             ///< SHA-256 of the file, lowercase hexadecimal
    std::string file_name;          ///< base-<generation>-<digest prefix>.scout, in the directory
    std::string model_id;           ///< the model of the file's vectors; empty for BM25 only
    std::uint64_t epoch = 0;        ///< the builder's epoch
    std::uint64_t tools = 0;        ///< tools in the file
    std::uint64_t outcome_seq = 0;  ///< every outcome event up to this one is in its prior
};

struct BuilderOptions {
    /// How the builder follows the registry; its catalog is what it publishes.
    ReplicaOptions replica;
    /// Where base files and their manifests are written; replicas read the same directory
    /// (ReplicaOptions::base_directory). A local or shared file system path.
    std::filesystem::path directory;
};

/// The one process that publishes bases. start() takes a new epoch, higher than every epoch
/// before it; publish() records a base only while that epoch is still the newest (checked in
/// the transaction that records it), so a builder that another one replaced is refused
/// instead of publishing beside it.
class BaseBuilder {
public:
    /// `embedder` as for a Replica: with the registry's model, documents come from the registry.
    [[nodiscard]] static Result<std::unique_ptr<BaseBuilder>> start(
        BuilderOptions options, std::shared_ptr<Embedder> embedder = nullptr);
    ~BaseBuilder();
    BaseBuilder(const BaseBuilder&) = delete;
    BaseBuilder& operator=(const BaseBuilder&) = delete;

    [[nodiscard]] std::uint64_t epoch() const noexcept { return epoch_; }
    /// Catches up with the registry, writes the catalog as a base file (temporary file, fsync,
    /// rename) with a JSON manifest beside it, and records it. unavailable, naming both epochs,
    /// when a newer builder has started; the files of a refused base are removed.
    [[nodiscard]] Result<PublishedBase> publish();

private:
    BaseBuilder(BuilderOptions options, std::unique_ptr<Replica> replica, std::uint64_t epoch);
    BuilderOptions options_;
    std::unique_ptr<Replica> replica_;
    std::uint64_t epoch_ = 0;
};

/// The newest published base; not_found when none was published.
[[nodiscard]] Result<PublishedBase> latest_base(const ConnectOptions& connect);

}  // namespace scout::registry
