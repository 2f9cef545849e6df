// run_command.hpp: runs a shell command for the CLI tests and captures its exit code and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

namespace scout::testing {

struct CommandRun {
    int code = -1;    ///< exit code, or 128 + signal number when the process was killed
    std::string out;  ///< standard output (redirect stderr in the command to capture it too)
};

inline CommandRun run_command(const std::string& command) {
    CommandRun r;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
        r.out.append(buf.data(), n);
    }
    const int status = ::pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

/// One run of a command-line program: exit code, standard output and standard error.
struct CliRun {
    int code = -1;
    std::string out;
    std::string err;
};

/// Runs `program args` under `timeout 60`, so a hang fails the test instead of stalling it;
/// standard error goes through err_path.
inline CliRun run_cli(const std::string& program,
                      const std::string& args,
                      const std::string& err_path) {
    const CommandRun r = run_command("timeout 60 " + program + " " + args + " 2>" + err_path);
    std::ifstream f(err_path, std::ios::binary);
    return {r.code,
            r.out,
            std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>())};
}

}  // namespace scout::testing
