// replica_base.cpp: a replica's start from a published base. Everything about the base is
// checked before the catalog is replaced: its name, its SHA-256 against the registry's record,
// its sequence against the head, its model against the registry's, and every section's checksum
// (Catalog::open). A base that fails any check is refused and the replica reads the log from 0.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <vector>

#include "registry/base_file.hpp"
#include "registry/replica_impl.hpp"

namespace scout::registry {

Status Replica::Impl::open_base_locked() {
    auto rows = reader->exec(
        "SELECT b.generation, b.seq, b.digest, b.file_name, b.model_id, "
        "(SELECT last_seq FROM scout_feed WHERE id = 1), m.fitted_state, b.outcome_seq "
        "FROM scout_bases b LEFT JOIN scout_models m ON m.model_id = b.model_id "
        "ORDER BY b.generation DESC LIMIT 1");
    if (!rows.ok()) {
        return rows.status();
    }
    base_tried = true;
    if (rows->rows() == 0) {
        return {};
    }
    const std::uint64_t generation = rows->number(0, 0).value_or(0);
    const std::uint64_t seq = rows->number(0, 1).value_or(0);
    const std::string digest(rows->text(0, 2));
    const std::string file_name(rows->text(0, 3));
    const std::string model_id(rows->text(0, 4));
    const std::uint64_t head = rows->number(0, 5).value_or(0);
    const std::uint64_t outcome_seq = rows->number(0, 7).value_or(0);
    const auto refuse = [&](const std::string& why) -> Status {
        std::lock_guard lock(state_mutex);
        stats.base_error = "base generation " + std::to_string(generation) + " refused (" + why +
                           "); reading the change log from sequence 0";
        return {};
    };
    if (!detail::is_base_file_name(file_name)) {
        return refuse("its file name is not a base file's name");
    }
    if (seq > head) {
        return refuse("its sequence " + std::to_string(seq) + " is past the registry's head " +
                      std::to_string(head));
    }
    const std::filesystem::path path = options.base_directory / file_name;
    auto actual = detail::file_sha256_hex(path);
    if (!actual.ok()) {
        return refuse(actual.status().message());
    }
    if (*actual != digest) {
        return refuse("SHA-256 of " + path.string() + " is " + *actual +
                      ", the registry recorded " + digest);
    }
    std::shared_ptr<Embedder> embedder;
    std::optional<std::string> state;
    if (vectors) {
        if (model_id.empty()) {
            return refuse("it holds no vectors and this replica has an embedder");
        }
        if (rows->is_null(0, 6)) {
            return refuse("its model " + model_id + " is no longer in the registry");
        }
        state = rows->bytes(0, 6);
        if (!state) {
            return refuse("the registry's fitted state of its model " + model_id +
                          " is not valid bytea");
        }
        embedder = vectors;
    }
    // Opened before the model is pinned: the file restores the embedder's fitted state, which
    // lets the catalog take the stored BM25 and HNSW indexes as they are instead of rebuilding
    // them (a pinned embedder takes no state).
    std::vector<std::string> warnings;
    auto opened = Catalog::open(path, embedder, &warnings);
    if (!opened.ok()) {
        return refuse(opened.status().to_string());
    }
    if (vectors && !vectors->pin(model_id, *state)) {
        return refuse("this replica's embedder cannot become its model " + model_id);
    }
    // The builder searched DEGRADED servers within their TTL, so the base holds them as
    // searchable: their TTL goes on here, unless a change after the base replaces them.
    auto degraded = reader->exec(
        "SELECT name, extract(epoch FROM now() - listed_at)::float8 FROM scout_servers "
        "WHERE state = 'DEGRADED' AND changed_seq <= $1",
        {detail::PgParam::number(seq)});
    if (!degraded.ok()) {
        base_tried = false;  // nothing replaced yet: the next attempt opens the base again
        return degraded.status();
    }
    catalog = std::move(opened.value());
    servers.clear();
    for (std::string& name : catalog.searcher().server_names()) {
        servers.insert(servers.end(), std::move(name));  // in name order
    }
    const auto now = std::chrono::steady_clock::now();
    degraded_until.clear();
    for (int r = 0; r < degraded->rows(); ++r) {
        const std::string name(degraded->text(r, 0));
        if (!servers.contains(name)) {
            continue;  // not searched in the base: nothing to expire
        }
        const double age = std::strtod(std::string(degraded->text(r, 1)).c_str(), nullptr);
        const std::chrono::duration<double> left =
            options.degraded_ttl - std::chrono::duration<double>(std::max(age, 0.0));
        degraded_until[name] =
            now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::max(left, std::chrono::duration<double>(0)));
    }
    position.applied = seq;
    // The base's prior holds every outcome event up to outcome_seq: replay only later ones.
    outcome_applied = outcome_seq;
    position.vectors_model = model_id;
    position.vectors_upto = seq;
    {
        std::lock_guard lock(state_mutex);
        stats.base_generation = generation;
        stats.base_seq = seq;
        stats.outcome_base_seq = outcome_seq;
        stats.outcome_seq = outcome_seq;
        stats.base_error.clear();
        stats.degraded_served.clear();
        for (const auto& [name, until] : degraded_until) {
            stats.degraded_served.push_back(name);
        }
        stats.model_id = model_id;
        stats.head_seq = std::max(stats.head_seq, head);
        applied.store(seq);
    }
    applied_cv.notify_all();
    if (on_applied) {
        on_applied(seq);
    }
    return {};
}

}  // namespace scout::registry
