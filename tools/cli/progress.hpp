// progress.hpp: progress of long work (parsing a catalog, indexing, evaluating many queries) on
// stderr. On a terminal, one line redrawn at most ten times a second with the rate and the time
// left, erased when the work is done. Piped (a log, CI), one plain line per phase as it ends,
// with its count, time and rate, so a log shows where the time went and no carriage returns.
// --quiet turns both off.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "scout/catalog.hpp"

#include "cli/args.hpp"

namespace scout::cli {

/// What a phase counts: items (tools, queries) or bytes (shown in MB).
enum class ProgressUnit { items, bytes };

/// "1234/s", "12.5 MB/s"; "" for a rate that cannot be measured yet (no time has passed).
[[nodiscard]] std::string format_rate(double per_second, ProgressUnit unit);
/// Time left: "3 s", "2 m 05 s", "1 h 02 m".
[[nodiscard]] std::string format_duration(double seconds);
/// The terminal line: "<task>: <done>/<total> (<percent>%), <rate>, ETA <left>", the rate and
/// ETA once a millisecond has passed and something is done.
[[nodiscard]] std::string progress_line(std::string_view task,
                                        std::size_t done,
                                        std::size_t total,
                                        double elapsed_seconds,
                                        ProgressUnit unit);
/// The piped line at the end of a phase: "<task>: <done> in <time> (<rate>)", the time in ms
/// under a second, the rate left out under a millisecond.
[[nodiscard]] std::string phase_line(std::string_view task,
                                     std::size_t done,
                                     double elapsed_seconds,
                                     ProgressUnit unit);

class Progress {
public:
    enum class Style { off, terminal, lines };
    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    using Writer = std::function<void(std::string_view)>;

    /// terminal when stderr is one, lines when it is not; off with --quiet.
    explicit Progress(const Args& args);
    /// For tests: a chosen style, clock and output.
    Progress(Style style, Clock clock, Writer write);
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() { finish(); }

    [[nodiscard]] bool enabled() const noexcept { return style_ != Style::off; }
    /// Reports `done` of `total` for `task`; a new task name starts a new phase (and ends the
    /// previous one). Redrawn when due, and always at done == total.
    void update(std::string_view task,
                std::size_t done,
                std::size_t total,
                ProgressUnit unit = ProgressUnit::items);
    /// Ends the current phase: erases the terminal line, or prints the phase's line if it has
    /// not been printed.
    void finish();

    /// A commit progress callback reporting "indexing <phase>", or an empty one when disabled.
    [[nodiscard]] ProgressCallback commit_callback();

private:
    void end_phase();

    Style style_ = Style::off;
    Clock clock_;
    Writer write_;
    std::string task_;  ///< the current phase; empty when none
    ProgressUnit unit_ = ProgressUnit::items;
    std::size_t done_ = 0;
    bool phase_printed_ = false;
    std::chrono::steady_clock::time_point phase_start_{};
    std::chrono::steady_clock::time_point last_draw_{};
    bool drawn_ = false;
    std::size_t width_ = 0;
};

}  // namespace scout::cli
