// run_command.hpp: runs a shell command for the CLI tests and captures its exit code and output.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

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

}  // namespace scout::testing
