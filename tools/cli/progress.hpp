// progress.hpp: a one-line progress display on stderr for long work (indexing, evaluating many
// queries). Shown only when stderr is a terminal and --quiet was not given, redrawn at most
// ten times a second, and erased when the work is done, so pipes and logs never see it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "scout/catalog.hpp"

#include "cli/args.hpp"

namespace scout::cli {

class Progress {
public:
    /// On when stderr is a terminal and `args` has no --quiet.
    explicit Progress(const Args& args);
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() { finish(); }

    [[nodiscard]] bool enabled() const noexcept { return enabled_; }
    /// "<task>: <done>/<total> (<percent>%)", redrawn when due (and always at done == total).
    void update(std::string_view task, std::size_t done, std::size_t total);
    /// Erases the line.
    void finish();

    /// A commit progress callback drawing "indexing <phase>", or an empty one when disabled.
    [[nodiscard]] ProgressCallback commit_callback();

private:
    bool enabled_ = false;
    bool drawn_ = false;
    std::size_t width_ = 0;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace scout::cli
