// child_process.hpp: a backend MCP server as a POSIX child process with pipes on its stdin and
// stdout (its stderr is inherited, so backend logs land on the gateway's stderr, never stdout).
// The child leads a process group of its own, so stopping it also stops what it started.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "scout/status.hpp"

namespace scout::gateway {

/// How long stop() gives a child at each step: after EOF on its stdin, after SIGTERM, and
/// after SIGKILL before giving up on reaping it. Their sum bounds every stop.
struct StopGraces {
    std::chrono::milliseconds after_eof{300};
    std::chrono::milliseconds after_term{500};
    std::chrono::milliseconds after_kill{500};
};

/// Owns the child: the destructor stops it and reaps it. Both pipe ends are non-blocking.
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
    /// The write end of the child's stdin, handed over to the caller (who closes it); -1 after.
    [[nodiscard]] int take_stdin() noexcept;
    /// The read end of the child's stdout (owned by this object).
    [[nodiscard]] int stdout_fd() const noexcept { return out_fd_; }

    /// True once the child has exited (it stays unreaped until stop()). Thread-safe.
    [[nodiscard]] bool exited();

    /// Closes stdin if still owned, waits for the child to exit, then SIGTERM, then SIGKILL to
    /// its process group, each step bounded by `graces`; once the child is gone, whatever is
    /// left of its group is killed and the child reaped. Only the first call waits.
    /// Thread-safe.
    void stop(StopGraces graces = {});

private:
    ChildProcess(pid_t pid, int in_fd, int out_fd) : pid_(pid), in_fd_(in_fd), out_fd_(out_fd) {}
    bool has_exited_locked();
    bool wait_exit(std::chrono::milliseconds timeout);
    void reap();

    pid_t pid_;
    int in_fd_;
    int out_fd_;
    bool reaped_ = false;
    bool stop_tried_ = false;
    std::mutex stop_mutex_;
};

}  // namespace scout::gateway
