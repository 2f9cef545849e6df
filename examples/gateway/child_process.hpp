// child_process.hpp: a backend MCP server as a POSIX child process with pipes on its stdin and
// stdout (its stderr is inherited, so backend logs land on the gateway's stderr, never stdout).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "scout/status.hpp"

namespace scout::gateway {

/// Owns the child: the destructor stops it (close stdin, SIGTERM, SIGKILL) and reaps it.
/// write_line is thread-safe; read_line must be called from one thread only (the reader).
class ChildProcess {
public:
    /// fork + execvp of `command` with `args`; `env` entries are added to (or override) the
    /// gateway's own environment. not_found / io_error when the program cannot be started.
    [[nodiscard]] static Result<std::unique_ptr<ChildProcess>> spawn(
        const std::string& command,
        const std::vector<std::string>& args,
        const std::map<std::string, std::string>& env);

    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    ~ChildProcess();

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }

    /// Writes `line` plus '\n' to the child's stdin. unavailable once the pipe is broken.
    [[nodiscard]] Status write_line(const std::string& line);
    /// Blocks for the next line of the child's stdout; nullopt at EOF, on error, or when a line
    /// exceeds `max_bytes` (the stream is then unusable).
    [[nodiscard]] std::optional<std::string> read_line(std::size_t max_bytes);

    /// Closes stdin, waits up to `grace` for the child to exit, then SIGTERM, then SIGKILL.
    /// Idempotent. Afterwards read_line returns nullopt.
    void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(500));

private:
    ChildProcess(pid_t pid, int in_fd, int out_fd) : pid_(pid), in_fd_(in_fd), out_fd_(out_fd) {}
    bool wait_exit(std::chrono::milliseconds timeout);

    pid_t pid_;
    int in_fd_;
    int out_fd_;
    bool reaped_ = false;
    std::mutex write_mutex_;
    std::mutex stop_mutex_;
    std::string buffer_;
};

}  // namespace scout::gateway
