// progress.cpp: see progress.hpp.
#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scout::cli {
namespace {

constexpr double kBytesPerMb = 1e6;

std::string fixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string amount(std::size_t n, ProgressUnit unit) {
    if (unit == ProgressUnit::bytes) {
        return fixed(static_cast<double>(n) / kBytesPerMb, 1);
    }
    return std::to_string(n);
}

Progress::Style style_for(const Args& args) {
    if (args.spec().find("quiet") && args.has("quiet")) {
        return Progress::Style::off;
    }
    return isatty(STDERR_FILENO) == 1 ? Progress::Style::terminal : Progress::Style::lines;
}

}  // namespace

std::string format_rate(double per_second, ProgressUnit unit) {
    if (!(per_second > 0) || !std::isfinite(per_second)) {
        return "";
    }
    if (unit == ProgressUnit::bytes) {
        return fixed(per_second / kBytesPerMb, 1) + " MB/s";
    }
    return fixed(per_second, per_second < 10 ? 1 : 0) + "/s";
}

std::string format_duration(double seconds) {
    const auto whole = static_cast<long long>(std::ceil(std::max(seconds, 0.0)));
    char buffer[64];
    if (whole < 60) {
        std::snprintf(buffer, sizeof buffer, "%lld s", whole);
    } else if (whole < 3600) {
        std::snprintf(buffer, sizeof buffer, "%lld m %02lld s", whole / 60, whole % 60);
    } else {
        std::snprintf(buffer, sizeof buffer, "%lld h %02lld m", whole / 3600, whole / 60 % 60);
    }
    return buffer;
}

std::string progress_line(std::string_view task,
                          std::size_t done,
                          std::size_t total,
                          double elapsed_seconds,
                          ProgressUnit unit) {
    // Appended piece by piece: GCC 12 misreports `"literal" + std::string` here (-Wrestrict).
    std::string line(task);
    line.append(": ").append(amount(done, unit));
    if (total > 0) {
        line.append("/").append(amount(total, unit));
        if (unit == ProgressUnit::bytes) {
            line.append(" MB");
        }
        line.append(" (").append(std::to_string(done * 100 / total)).append("%)");
    }
    const double rate = elapsed_seconds >= 0.001 ? static_cast<double>(done) / elapsed_seconds : 0;
    if (const std::string shown = format_rate(rate, unit); !shown.empty()) {
        line.append(", ").append(shown);
        if (total > done) {
            line.append(", ETA ").append(format_duration(static_cast<double>(total - done) / rate));
        }
    }
    return line;
}

std::string phase_line(std::string_view task,
                       std::size_t done,
                       double elapsed_seconds,
                       ProgressUnit unit) {
    std::string line(task);
    line.append(": ").append(amount(done, unit));
    if (unit == ProgressUnit::bytes) {
        line.append(" MB");
    }
    line.append(" in ");
    if (elapsed_seconds < 1) {
        line.append(fixed(elapsed_seconds * 1000, elapsed_seconds < 0.01 ? 1 : 0)).append(" ms");
    } else {
        line.append(fixed(elapsed_seconds, 2)).append(" s");
    }
    // Under a millisecond the clock's granularity would make the rate noise.
    const double rate = elapsed_seconds >= 0.001 ? static_cast<double>(done) / elapsed_seconds : 0;
    if (const std::string shown = format_rate(rate, unit); !shown.empty()) {
        line.append(" (").append(shown).append(")");
    }
    return line;
}

Progress::Progress(const Args& args)
    : Progress(
          style_for(args),
          [] { return std::chrono::steady_clock::now(); },
          [](std::string_view text) {
              std::fwrite(text.data(), 1, text.size(), stderr);
              std::fflush(stderr);
          }) {}

Progress::Progress(Style style, Clock clock, Writer write)
    : style_(style), clock_(std::move(clock)), write_(std::move(write)) {}

void Progress::update(std::string_view task,
                      std::size_t done,
                      std::size_t total,
                      ProgressUnit unit) {
    if (style_ == Style::off) {
        return;
    }
    const auto now = clock_();
    if (task != task_) {
        end_phase();
        task_ = task;
        unit_ = unit;
        phase_start_ = now;
        phase_printed_ = false;
    }
    done_ = done;
    const double elapsed = std::chrono::duration<double>(now - phase_start_).count();
    if (style_ == Style::lines) {
        if (total > 0 && done >= total && !phase_printed_) {
            write_(phase_line(task_, done, elapsed, unit_).append("\n"));
            phase_printed_ = true;
        }
        return;
    }
    if (drawn_ && done != total && now - last_draw_ < std::chrono::milliseconds(100)) {
        return;
    }
    last_draw_ = now;
    std::string line = progress_line(task_, done, total, elapsed, unit_);
    const std::size_t width = line.size();
    if (width < width_) {
        line.append(width_ - width, ' ');  // cover the end of a longer previous line
    }
    width_ = width;
    line.insert(line.begin(), '\r');
    write_(line);
    drawn_ = true;
}

void Progress::end_phase() {
    if (style_ == Style::lines && !task_.empty() && !phase_printed_) {
        const double elapsed = std::chrono::duration<double>(clock_() - phase_start_).count();
        write_(phase_line(task_, done_, elapsed, unit_).append("\n"));
    }
    phase_printed_ = true;
    task_.clear();
}

void Progress::finish() {
    end_phase();
    if (!drawn_) {
        return;
    }
    std::string blank(width_ + 2, ' ');  // "\r", the width in spaces, "\r"
    blank.front() = '\r';
    blank.back() = '\r';
    write_(blank);
    drawn_ = false;
    width_ = 0;
}

ProgressCallback Progress::commit_callback() {
    if (style_ == Style::off) {
        return {};
    }
    return [this](const CommitProgress& p) {
        update("indexing " + std::string(p.phase), p.done, p.total);
    };
}

}  // namespace scout::cli
