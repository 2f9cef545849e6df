// pg_connection.cpp: libpq behind deadlines. Every wait is a poll() on the connection's socket
// with what is left of a deadline, so an unreachable or stalled server costs a bounded time.
#include "registry/pg_connection.hpp"

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <fstream>

#include <libpq-fe.h>

namespace scout::detail {

namespace {

using Clock = std::chrono::steady_clock;

// A margin over the server's own statement_timeout, so the server's clear error normally wins.
constexpr std::chrono::milliseconds kClientMargin{1000};

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

// The server's reason, with a hint for the failures an operator meets first.
std::string connect_error(const std::string& reason) {
    if (reason.find("password authentication failed") != std::string::npos) {
        return "registry refused the password: " + reason;
    }
    if (reason.find("no password supplied") != std::string::npos) {
        return "registry asks for a password and none was given (PGPASSWORD, PGPASSFILE or a "
               "password file): " +
               reason;
    }
    return "cannot connect to the registry: " + reason;
}

Result<std::string> read_password(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return Status{Errc::io_error, "cannot read the registry password file " + path};
    }
    std::string line;
    std::getline(in, line);
    return trimmed(line);
}

}  // namespace

PgResult::PgResult(pg_result* result) : result_(result) {}

void PgResult::Clear::operator()(pg_result* r) const {
    PQclear(r);
}

int PgResult::rows() const {
    return result_ ? PQntuples(result_.get()) : 0;
}

bool PgResult::is_null(int row, int column) const {
    return PQgetisnull(result_.get(), row, column) != 0;
}

std::string_view PgResult::text(int row, int column) const {
    const char* v = PQgetvalue(result_.get(), row, column);
    return {v, static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

std::optional<std::string> PgResult::bytes(int row, int column) const {
    std::size_t length = 0;
    const auto* escaped =
        reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row, column));
    unsigned char* raw = PQunescapeBytea(escaped, &length);
    if (raw == nullptr) {
        return std::nullopt;
    }
    std::string out(reinterpret_cast<const char*>(raw), length);
    PQfreemem(raw);
    return out;
}

std::optional<std::uint64_t> PgResult::number(int row, int column) const {
    const std::string_view t = text(row, column);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || end != t.data() + t.size() || t.empty()) {
        return std::nullopt;
    }
    return v;
}

void PgConnection::Finish::operator()(pg_conn* c) const {
    PQfinish(c);
}

Result<PgConnection> PgConnection::connect(const registry::ConnectOptions& options) {
    if (Status s = registry::check_url(options.url); !s.ok()) {
        return s;
    }
    std::string password;
    if (!options.password_file.empty()) {
        auto read = read_password(options.password_file);
        if (!read.ok()) {
            return read.status();
        }
        password = std::move(read.value());
    }
    std::vector<const char*> keys = {"dbname", "application_name"};
    std::vector<const char*> values = {options.url.c_str(), "scout"};
    if (!password.empty()) {
        keys.push_back("password");
        values.push_back(password.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);

    const auto deadline = Clock::now() + options.connect_timeout;
    PgConnection conn(PQconnectStartParams(keys.data(), values.data(), 1),
                      options.statement_timeout);
    if (!conn.conn_) {
        return Status{Errc::internal, "cannot connect to the registry: out of memory"};
    }
    if (PQstatus(conn.conn_.get()) == CONNECTION_BAD) {
        return Status{Errc::unavailable, connect_error(conn.last_error())};
    }
    PostgresPollingStatusType state = PGRES_POLLING_WRITING;
    while (state != PGRES_POLLING_OK) {
        if (state == PGRES_POLLING_FAILED) {
            return Status{Errc::unavailable, connect_error(conn.last_error())};
        }
        if (Status s = conn.wait_socket(state == PGRES_POLLING_WRITING, deadline); !s.ok()) {
            return Status{Errc::unavailable,
                          "cannot connect to the registry within " +
                              std::to_string(options.connect_timeout.count()) + " ms"};
        }
        state = PQconnectPoll(conn.conn_.get());
    }
    // Server notices (NOTICE, the FATAL of a terminated session) are not the program's output;
    // what matters reaches the caller as a Status.
    PQsetNoticeProcessor(
        conn.conn_.get(), [](void*, const char*) {}, nullptr);
    if (PQsetnonblocking(conn.conn_.get(), 1) != 0) {
        return Status{Errc::unavailable, connect_error(conn.last_error())};
    }
    const std::string timeout = std::to_string(options.statement_timeout.count());
    if (Status s =
            conn.run("SELECT set_config('statement_timeout', $1, false)", {PgParam::text(timeout)});
        !s.ok()) {
        return s;
    }
    return conn;
}

bool PgConnection::ok() const {
    return conn_ && !broken_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

std::string PgConnection::last_error() const {
    return conn_ ? trimmed(PQerrorMessage(conn_.get())) : std::string("no connection");
}

Status PgConnection::wait_socket(bool for_write, Clock::time_point deadline) {
    const int fd = PQsocket(conn_.get());
    if (fd < 0) {
        return {Errc::unavailable, "registry connection has no socket"};
    }
    pollfd p{fd, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            return {Errc::unavailable, "registry did not answer in time"};
        }
        const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
        if (n > 0) {
            return {};
        }
        if (n < 0 && errno != EINTR) {
            return {Errc::unavailable, "waiting for the registry failed"};
        }
    }
}

Result<PgResult> PgConnection::exec(std::string_view sql, const std::vector<PgParam>& params) {
    if (!ok()) {
        return Status{Errc::unavailable, "registry connection is closed: " + last_error()};
    }
    const std::string statement(sql);
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const PgParam& p : params) {
        values.push_back(p.null ? nullptr : p.value.data());
        lengths.push_back(static_cast<int>(p.value.size()));
        formats.push_back(p.binary ? 1 : 0);
    }
    pg_conn* c = conn_.get();
    if (PQsendQueryParams(c,
                          statement.c_str(),
                          static_cast<int>(params.size()),
                          nullptr,
                          values.data(),
                          lengths.data(),
                          formats.data(),
                          0) == 0) {
        broken_ = true;
        return Status{Errc::unavailable, "registry statement not sent: " + last_error()};
    }
    const auto deadline = Clock::now() + statement_timeout_ + kClientMargin;
    auto give_up = [&](const std::string& why) -> Status {
        if (PGcancel* cancel = PQgetCancel(c); cancel != nullptr) {
            std::array<char, 256> buf{};
            (void)PQcancel(cancel, buf.data(), static_cast<int>(buf.size()));
            PQfreeCancel(cancel);
        }
        broken_ = true;
        return {Errc::unavailable, why};
    };
    int flushed = 0;
    while ((flushed = PQflush(c)) == 1) {
        if (Status s = wait_socket(true, deadline); !s.ok()) {
            return give_up("registry statement timed out while sending");
        }
    }
    if (flushed < 0) {
        broken_ = true;
        return Status{Errc::unavailable, "registry connection broke: " + last_error()};
    }
    PgResult kept;
    std::string error;
    for (;;) {
        while (PQisBusy(c) != 0) {
            if (Status s = wait_socket(false, deadline); !s.ok()) {
                return give_up("registry statement timed out after " +
                               std::to_string(statement_timeout_.count()) + " ms");
            }
            if (PQconsumeInput(c) == 0) {
                broken_ = true;
                return Status{Errc::unavailable, "registry connection broke: " + last_error()};
            }
        }
        pg_result* r = PQgetResult(c);
        if (r == nullptr) {
            break;
        }
        const ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && error.empty()) {
            error = trimmed(PQresultErrorMessage(r));
            if (error.empty()) {
                error = PQresStatus(st);
            }
        }
        kept = PgResult(r);
    }
    if (!error.empty()) {
        if (PQstatus(c) != CONNECTION_OK) {
            broken_ = true;
        }
        return Status{Errc::unavailable, "registry: " + error};
    }
    return kept;
}

Status PgConnection::run(std::string_view sql, const std::vector<PgParam>& params) {
    auto r = exec(sql, params);
    return r.ok() ? Status{} : r.status();
}

Result<std::vector<std::string>> PgConnection::wait_notifications(
    std::chrono::milliseconds timeout) {
    if (!ok()) {
        return Status{Errc::unavailable, "registry connection is closed: " + last_error()};
    }
    pg_conn* c = conn_.get();
    std::vector<std::string> payloads;
    auto drain = [&] {
        while (PGnotify* n = PQnotifies(c)) {
            payloads.emplace_back(n->extra);
            PQfreemem(n);
        }
    };
    if (PQconsumeInput(c) == 0) {
        broken_ = true;
        return Status{Errc::unavailable, "registry connection broke: " + last_error()};
    }
    drain();
    if (!payloads.empty()) {
        return payloads;
    }
    if (Status s = wait_socket(false, Clock::now() + timeout); !s.ok()) {
        return payloads;  // nothing arrived in time
    }
    if (PQconsumeInput(c) == 0) {
        broken_ = true;
        return Status{Errc::unavailable, "registry connection broke: " + last_error()};
    }
    drain();
    return payloads;
}

}  // namespace scout::detail
