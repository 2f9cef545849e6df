// gateway_process.hpp: runs scout-gateway as a child process for the fault tests and speaks
// JSON-RPC to it over its stdin and stdout. A reader thread files every answer by id; the
// destructor kills the gateway if a test left it running, so no test can hang on it.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace scout::test {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

class GatewayProcess {
public:
    /// Starts `program` with `args`; its stderr goes to `stderr_path`.
    GatewayProcess(const std::string& program,
                   const std::vector<std::string>& args,
                   const std::string& stderr_path)
        : stderr_path_(stderr_path) {
        ::signal(SIGPIPE, SIG_IGN);  // a gateway that died must fail the test, not kill it
        int in[2];
        int out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe failed");
        }
        posix_spawn_file_actions_t actions;
        ::posix_spawn_file_actions_init(&actions);
        ::posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
        ::posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        ::posix_spawn_file_actions_addopen(
            &actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<std::string> argv_strings{program};
        argv_strings.insert(argv_strings.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : argv_strings) {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        const int rc =
            ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
        ::posix_spawn_file_actions_destroy(&actions);
        ::close(in[0]);
        ::close(out[1]);
        if (rc != 0) {
            ::close(in[1]);
            ::close(out[0]);
            throw std::runtime_error("cannot start " + program);
        }
        in_fd_ = in[1];
        out_fd_ = out[0];
        reader_ = std::thread([this] { read_loop(); });
    }

    ~GatewayProcess() {
        close_stdin();
        if (!exited_) {
            ::kill(pid_, SIGKILL);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        reader_.join();
        ::close(out_fd_);
    }

    GatewayProcess(const GatewayProcess&) = delete;
    GatewayProcess& operator=(const GatewayProcess&) = delete;

    [[nodiscard]] pid_t pid() const { return pid_; }

    /// Writes `line` and a newline; false once the gateway no longer reads.
    bool send_line(const std::string& line) { return send_bytes(line + "\n"); }

    /// Writes `data` as it is.
    bool send_bytes(const std::string& data) {
        std::lock_guard lock(write_mutex_);
        std::size_t off = 0;
        while (off < data.size() && in_fd_ >= 0) {
            const ssize_t n = ::write(in_fd_, data.data() + off, data.size() - off);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                return false;
            }
            off += static_cast<std::size_t>(n);
        }
        return in_fd_ >= 0;
    }

    bool send(const Json& message) { return send_line(message.dump()); }

    /// Sends a request with a fresh integer id and returns that id.
    Json send_request(const std::string& method, Json params = Json::object()) {
        const Json id = next_id_++;
        send(Json{
            {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        return id;
    }

    /// The answer to `id`, waiting at most `timeout`; nullopt when none came.
    std::optional<Json> wait_for(const Json& id, milliseconds timeout) {
        std::unique_lock lock(mutex_);
        const std::string key = id.dump();
        cv_.wait_for(lock, timeout, [&] { return answers_.count(key) != 0 || eof_; });
        auto it = answers_.find(key);
        if (it == answers_.end()) {
            return std::nullopt;
        }
        return it->second;
    }

    /// send_request + wait_for.
    std::optional<Json> request(const std::string& method, Json params, milliseconds timeout) {
        return wait_for(send_request(method, std::move(params)), timeout);
    }

    /// execute_tool of `tool` on `server`; the tools/call answer.
    Json execute_id(const std::string& server, const std::string& tool, Json arguments) {
        return send_request("tools/call",
                            Json{{"name", "execute_tool"},
                                 {"arguments",
                                  {{"tool_name", tool},
                                   {"server_name", server},
                                   {"arguments", std::move(arguments)}}}});
    }

    /// The initialize handshake; true when the gateway answered it.
    bool initialize(milliseconds timeout = milliseconds(10000)) {
        auto r = request("initialize",
                         Json{{"protocolVersion", "2025-06-18"},
                              {"capabilities", Json::object()},
                              {"clientInfo", {{"name", "fault-test"}, {"version", "1"}}}},
                         timeout);
        send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        return r.has_value() && r->contains("result");
    }

    /// Every line that was not the answer to a request with an id (notifications, errors
    /// with a null id), in arrival order.
    std::vector<Json> unaddressed() {
        std::lock_guard lock(mutex_);
        return unaddressed_;
    }

    /// Number of stdout lines that were not valid JSON objects (must stay 0).
    std::size_t bad_lines() {
        std::lock_guard lock(mutex_);
        return bad_lines_;
    }

    void close_stdin() {
        std::lock_guard lock(write_mutex_);
        if (in_fd_ >= 0) {
            ::close(in_fd_);
            in_fd_ = -1;
        }
    }

    /// Waits at most `timeout` for the gateway to exit; its wait status, or nullopt.
    std::optional<int> wait_exit(milliseconds timeout) {
        const auto deadline = Clock::now() + timeout;
        for (;;) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                return status;
            }
            if (Clock::now() >= deadline) {
                return std::nullopt;
            }
            std::this_thread::sleep_for(milliseconds(5));
        }
    }

    /// Peak resident memory so far, in KiB (VmHWM).
    std::size_t peak_rss_kib() const {
        std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
        std::string key;
        while (status >> key) {
            if (key == "VmHWM:") {
                std::size_t kib = 0;
                status >> kib;
                return kib;
            }
        }
        return 0;
    }

    [[nodiscard]] std::string stderr_text() const {
        std::ifstream in(stderr_path_);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

private:
    void read_loop() {
        std::string buffer;
        char chunk[65536];
        for (;;) {
            const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            buffer.append(chunk, static_cast<std::size_t>(n));
            std::size_t start = 0;
            for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos;
                 start = nl + 1) {
                file_line(std::string_view(buffer).substr(start, nl - start));
            }
            buffer.erase(0, start);
        }
        std::lock_guard lock(mutex_);
        eof_ = true;
        cv_.notify_all();
    }

    void file_line(std::string_view line) {
        Json m = Json::parse(line, nullptr, false);
        std::lock_guard lock(mutex_);
        if (m.is_discarded() || !m.is_object()) {
            ++bad_lines_;
        } else if (auto id = m.find("id"); id != m.end() && !id->is_null()) {
            const std::string key = id->dump();  // before m is moved from
            answers_[key] = std::move(m);
        } else {
            unaddressed_.push_back(std::move(m));
        }
        cv_.notify_all();
    }

    std::string stderr_path_;
    pid_t pid_ = -1;
    int in_fd_ = -1;
    int out_fd_ = -1;
    bool exited_ = false;
    std::atomic<std::int64_t> next_id_{1};
    std::mutex write_mutex_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::map<std::string, Json> answers_;
    std::vector<Json> unaddressed_;
    std::size_t bad_lines_ = 0;
    bool eof_ = false;
    std::thread reader_;
};

}  // namespace scout::test
