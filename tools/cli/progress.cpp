// progress.cpp: see progress.hpp.
#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace scout::cli {

Progress::Progress(const Args& args)
    : enabled_(isatty(STDERR_FILENO) == 1 && (!args.spec().find("quiet") || !args.has("quiet"))) {}

void Progress::update(std::string_view task, std::size_t done, std::size_t total) {
    if (!enabled_) {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && done != total && now - last_ < std::chrono::milliseconds(100)) {
        return;
    }
    last_ = now;
    // Appended piece by piece: GCC 12 misreports `"literal" + std::string` here (-Wrestrict).
    std::string line(task);
    line.append(": ").append(std::to_string(done));
    if (total > 0) {
        line.append("/").append(std::to_string(total)).append(" (");
        line.append(std::to_string(done * 100 / total)).append("%)");
    }
    const std::size_t width = line.size();
    if (width < width_) {
        line.append(width_ - width, ' ');  // cover the end of a longer previous line
    }
    width_ = width;
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void Progress::finish() {
    if (!drawn_) {
        return;
    }
    std::fprintf(stderr, "\r%s\r", std::string(width_, ' ').c_str());
    std::fflush(stderr);
    drawn_ = false;
    width_ = 0;
}

ProgressCallback Progress::commit_callback() {
    if (!enabled_) {
        return {};
    }
    return [this](const CommitProgress& p) {
        update("indexing " + std::string(p.phase), p.done, p.total);
    };
}

}  // namespace scout::cli
