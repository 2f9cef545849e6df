// pg_connection.hpp: a small RAII wrapper over libpq: one connection, parameterised statements
// only, every wait bounded by a deadline, errors as Status with the server's message.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scout/registry/registry.hpp"
#include "scout/status.hpp"

struct pg_conn;
struct pg_result;

namespace scout::detail {

/// One statement parameter: text, or bytes sent in binary form (bytea).
struct PgParam {
    std::string value;
    bool binary = false;
    bool null = false;

    static PgParam text(std::string v) { return {std::move(v), false, false}; }
    static PgParam bytes(std::string v) { return {std::move(v), true, false}; }
    static PgParam number(std::uint64_t v) { return text(std::to_string(v)); }
};

/// A statement's rows, in text form. Owns the libpq result.
class PgResult {
public:
    PgResult() = default;
    explicit PgResult(pg_result* result);

    [[nodiscard]] int rows() const;
    [[nodiscard]] bool is_null(int row, int column) const;
    [[nodiscard]] std::string_view text(int row, int column) const;
    /// A bytea column, decoded from its text form; nullopt when the text is not valid bytea.
    [[nodiscard]] std::optional<std::string> bytes(int row, int column) const;
    /// A bigint column; nullopt when the text is not a non-negative integer.
    [[nodiscard]] std::optional<std::uint64_t> number(int row, int column) const;

private:
    struct Clear {
        void operator()(pg_result* r) const;
    };
    std::unique_ptr<pg_result, Clear> result_;
};

class PgConnection {
public:
    /// Connects within options.connect_timeout and sets the session's statement_timeout.
    /// unavailable with the server's reason (refused password, unknown database, no server).
    [[nodiscard]] static Result<PgConnection> connect(const registry::ConnectOptions& options);

    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;
    PgConnection(PgConnection&&) noexcept = default;
    PgConnection& operator=(PgConnection&&) noexcept = default;
    ~PgConnection() = default;

    /// Runs one statement with `params` ($1, $2...), waiting at most the statement timeout.
    /// A timeout cancels the statement and leaves the connection unusable (ok() false).
    [[nodiscard]] Result<PgResult> exec(std::string_view sql,
                                        const std::vector<PgParam>& params = {});
    /// Runs a statement that returns no rows (BEGIN, COMMIT, LISTEN...).
    [[nodiscard]] Status run(std::string_view sql, const std::vector<PgParam>& params = {});

    /// Waits up to `timeout` for notifications; returns their payloads (empty on timeout).
    /// unavailable when the connection broke.
    [[nodiscard]] Result<std::vector<std::string>> wait_notifications(
        std::chrono::milliseconds timeout);

    /// False once the connection broke or a statement timed out.
    [[nodiscard]] bool ok() const;

private:
    struct Finish {
        void operator()(pg_conn* c) const;
    };
    PgConnection(pg_conn* conn, std::chrono::milliseconds statement_timeout)
        : conn_(conn), statement_timeout_(statement_timeout) {}
    [[nodiscard]] Status wait_socket(bool for_write,
                                     std::chrono::steady_clock::time_point deadline);
    [[nodiscard]] std::string last_error() const;

    std::unique_ptr<pg_conn, Finish> conn_;
    std::chrono::milliseconds statement_timeout_;
    bool broken_ = false;
};

/// Runs `body` inside BEGIN ... COMMIT (ROLLBACK when it fails).
template <typename Body>
[[nodiscard]] Status in_transaction(PgConnection& conn, std::string_view begin, Body&& body) {
    if (Status s = conn.run(begin); !s.ok()) {
        return s;
    }
    Status s = body();
    if (!s.ok()) {
        (void)conn.run("ROLLBACK");
        return s;
    }
    return conn.run("COMMIT");
}

}  // namespace scout::detail
