// child_process.cpp: see child_process.hpp. The argv/envp arrays are built before fork, so the
// child only calls async-signal-safe functions (dup2, execvpe, write, _exit).
#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace scout::gateway {
namespace {

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
    std::vector<std::string> out;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        std::string entry(*e);
        const std::string key = entry.substr(0, entry.find('='));
        if (extra.find(key) == extra.end()) {
            out.push_back(std::move(entry));
        }
    }
    for (const auto& [k, v] : extra) {
        out.push_back(std::string(k).append("=").append(v));
    }
    return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

void close_fd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(
    const std::string& command,
    const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env) {
    if (command.empty()) {
        return Status{Errc::invalid_argument, "empty command"};
    }
    std::vector<std::string> argv_strings{command};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<std::string> env_strings = merged_environment(env);
    std::vector<char*> argv = pointers(argv_strings);
    std::vector<char*> envp = pointers(env_strings);

    int in_pipe[2];
    int out_pipe[2];
    int err_pipe[2];  // reports an exec failure; closed by exec (O_CLOEXEC) on success
    if (::pipe2(in_pipe, O_CLOEXEC) != 0) {
        return Status{Errc::io_error, std::string("pipe: ") + std::strerror(errno)};
    }
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        ::close(in_pipe[0]);
        ::close(in_pipe[1]);
        return Status{Errc::io_error, std::string("pipe: ") + std::strerror(errno)};
    }
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) {
            ::close(fd);
        }
        return Status{Errc::io_error, std::string("pipe: ") + std::strerror(errno)};
    }
    [[maybe_unused]] const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd :
             {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
            ::close(fd);
        }
        return Status{Errc::io_error, std::string("fork: ") + std::strerror(errno)};
    }
    if (pid == 0) {
#ifdef __linux__
        // If the gateway dies without stopping it (SIGKILL), the backend goes too. The signal is
        // tied to the forking thread, which supervises this child for its whole life.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) {
            ::_exit(127);
        }
#endif
        ::setpgid(0, 0);  // stop() signals the group: helpers the backend started go too
        ::dup2(in_pipe[0], STDIN_FILENO);
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::signal(SIGPIPE, SIG_DFL);
        sigset_t none;  // the gateway blocks SIGTERM/SIGINT in its threads; a backend must not
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execvpe(argv[0], argv.data(), envp.data());
        const int e = errno;
        [[maybe_unused]] auto n = ::write(err_pipe[1], &e, sizeof e);
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    // Non-blocking: the gateway's threads wait in poll(), where a stop can interrupt them.
    for (int fd : {in_pipe[1], out_pipe[0]}) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    int exec_errno = 0;
    ssize_t n;
    do {
        n = ::read(err_pipe[0], &exec_errno, sizeof exec_errno);
    } while (n < 0 && errno == EINTR);
    ::close(err_pipe[0]);
    std::unique_ptr<ChildProcess> child(new ChildProcess(pid, in_pipe[1], out_pipe[0]));
    if (n == static_cast<ssize_t>(sizeof exec_errno)) {
        child->stop(StopGraces{std::chrono::milliseconds(0),
                               std::chrono::milliseconds(0),
                               std::chrono::milliseconds(500)});
        return Status{exec_errno == ENOENT ? Errc::not_found : Errc::io_error,
                      "cannot run '" + command + "': " + std::strerror(exec_errno)};
    }
    return child;
}

ChildProcess::~ChildProcess() {
    stop();
    close_fd(in_fd_);
    close_fd(out_fd_);
}

int ChildProcess::take_stdin() noexcept {
    std::lock_guard lock(stop_mutex_);
    const int fd = in_fd_;
    in_fd_ = -1;
    return fd;
}

bool ChildProcess::has_exited_locked() {
    if (reaped_) {
        return true;
    }
    // WNOWAIT: the exited child stays a zombie, so its pid, which is also its process group's
    // id, cannot be reused before stop() has swept the group.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno == ECHILD) {
            reaped_ = true;  // not ours to wait for any more: never signal its group again
        }
        return errno == ECHILD;
    }
    return info.si_pid == pid_;
}

bool ChildProcess::exited() {
    std::lock_guard lock(stop_mutex_);
    return has_exited_locked();
}

bool ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!has_exited_locked()) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

void ChildProcess::reap() {
    if (reaped_) {
        return;
    }
    // The leader is gone or going: what it started in its group goes too (helpers still
    // holding its stdout would otherwise outlive it). Its zombie keeps the group id reserved.
    ::kill(-pid_, SIGKILL);
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
        reaped_ = true;
    }
}

void ChildProcess::stop(StopGraces graces) {
    std::lock_guard lock(stop_mutex_);
    close_fd(in_fd_);  // EOF on stdin is the polite way to ask an MCP server to exit
    if (stop_tried_) {
        // Already stopped once (a process stuck in the kernel): check, never wait again.
        if (has_exited_locked()) {
            reap();
        }
        return;
    }
    stop_tried_ = true;
    if (!wait_exit(graces.after_eof)) {
        ::kill(-pid_, SIGTERM);
        ::kill(pid_, SIGTERM);  // in case setpgid failed
        if (!wait_exit(graces.after_term)) {
            ::kill(-pid_, SIGKILL);
            ::kill(pid_, SIGKILL);
            if (!wait_exit(graces.after_kill)) {
                return;  // bounded even for a process stuck in the kernel; the destructor checks
                         // again
            }
        }
    }
    reap();
}

}  // namespace scout::gateway
