// pg_server.hpp: a PostgreSQL server of its own for one test (tests/support/pg_test_server.sh),
// on a free loopback port and a Unix socket in a temporary directory, stopped and removed when
// the fixture goes out of scope, also when the test fails. A watchdog in the script stops it
// if the test process dies first.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace scout::test {

class PgServer {
public:
    static constexpr const char* kPassword = "scout-test-password";

    /// The server, or null with `why` set when PostgreSQL is not installed; a server that is
    /// installed but does not start fails the test.
    static std::unique_ptr<PgServer> start(std::string& why) {
        auto server = std::unique_ptr<PgServer>(new PgServer());
        server->port_ = free_port();
        const auto run = scout::testing::run_command(
            "timeout 90 " + script() + " start " + server->dir_.file("pg") + " " +
            std::to_string(server->port_) + " " + std::to_string(::getpid()) + " 2>&1");
        if (run.code == 77) {
            why = "PostgreSQL is not installed (postgresql-15): " + run.out;
            return nullptr;
        }
        INFO(run.out);
        REQUIRE(run.code == 0);
        server->running_ = true;
        return server;
    }

    ~PgServer() { stop(); }
    PgServer(const PgServer&) = delete;
    PgServer& operator=(const PgServer&) = delete;

    void stop() {
        if (running_) {
            running_ = false;
            (void)scout::testing::run_command("timeout 30 " + script() + " stop " +
                                              dir_.file("pg") + " 2>&1");
        }
    }

    /// Stops the server (every client is disconnected) and starts it again on the same data,
    /// port and socket; true when it is serving again.
    bool restart() {
        const auto run = scout::testing::run_command("timeout 60 " + script() + " restart " +
                                                     dir_.file("pg") + " 2>&1");
        return run.code == 0;
    }

    /// Over the Unix socket, trusted: no password.
    [[nodiscard]] std::string url() const {
        return "postgresql:///postgres?host=" + dir_.file("pg") + "&port=" + std::to_string(port_) +
               "&user=scout";
    }
    /// Over TCP on loopback, where the server asks for the password.
    [[nodiscard]] std::string tcp_url() const {
        return "postgresql://scout@127.0.0.1:" + std::to_string(port_) + "/postgres";
    }
    [[nodiscard]] const TempDir& dir() const { return dir_; }

private:
    PgServer() = default;

    static std::string script() {
        return std::string(SCOUT_TEST_SOURCE_DIR) + "/tests/support/pg_test_server.sh";
    }

    static int free_port() {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        REQUIRE(fd >= 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        socklen_t len = sizeof addr;
        const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
        ::close(fd);
        REQUIRE(ok);
        return ntohs(addr.sin_port);
    }

    TempDir dir_;
    int port_ = 0;
    bool running_ = false;
};

}  // namespace scout::test
