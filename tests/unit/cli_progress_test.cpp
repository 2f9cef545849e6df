// cli_progress_test.cpp: the CLI's progress display with an injected clock and output: the rate
// and ETA of the terminal line, one line per phase when piped, nothing with --quiet's style.
#include <chrono>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/progress.hpp"

using scout::cli::Progress;
using scout::cli::ProgressUnit;

namespace {

/// A clock the test moves by hand, and everything the display wrote.
struct Harness {
    std::chrono::steady_clock::time_point now{};
    std::string out;
    Progress make(Progress::Style style) {
        return Progress(
            style, [this] { return now; }, [this](std::string_view text) { out.append(text); });
    }
    void advance_ms(int ms) { now += std::chrono::milliseconds(ms); }
};

}  // namespace

TEST_CASE("rates and durations are formatted for people", "[cli][progress]") {
    CHECK(scout::cli::format_rate(1234.4, ProgressUnit::items) == "1234/s");
    CHECK(scout::cli::format_rate(2.5, ProgressUnit::items) == "2.5/s");
    CHECK(scout::cli::format_rate(12.5e6, ProgressUnit::bytes) == "12.5 MB/s");
    CHECK(scout::cli::format_rate(0, ProgressUnit::items).empty());
    CHECK(scout::cli::format_duration(0.2) == "1 s");  // rounded up: never "0 s" left
    CHECK(scout::cli::format_duration(59) == "59 s");
    CHECK(scout::cli::format_duration(125) == "2 m 05 s");
    CHECK(scout::cli::format_duration(3720) == "1 h 02 m");
}

TEST_CASE("the terminal line shows the rate and the time left", "[cli][progress]") {
    CHECK(scout::cli::progress_line("indexing embeddings", 200, 1000, 2.0, ProgressUnit::items) ==
          "indexing embeddings: 200/1000 (20%), 100/s, ETA 8 s");
    CHECK(scout::cli::progress_line(
              "parsing c.json", 3'000'000, 12'000'000, 0.5, ProgressUnit::bytes) ==
          "parsing c.json: 3.0/12.0 MB (25%), 6.0 MB/s, ETA 2 s");
    // Nothing measurable yet: no rate, no ETA; done: no ETA.
    CHECK(scout::cli::progress_line("x", 0, 10, 0.0, ProgressUnit::items) == "x: 0/10 (0%)");
    CHECK(scout::cli::progress_line("x", 10, 10, 2.0, ProgressUnit::items) ==
          "x: 10/10 (100%), 5.0/s");
}

TEST_CASE("a terminal redraws one line with rate and ETA, then erases it", "[cli][progress]") {
    Harness h;
    {
        Progress progress = h.make(Progress::Style::terminal);
        progress.update("indexing documents", 0, 400);
        h.advance_ms(1000);
        progress.update("indexing documents", 100, 400);
        h.advance_ms(10);  // too soon to redraw
        progress.update("indexing documents", 101, 400);
        h.advance_ms(1000);
        progress.update("indexing documents", 400, 400);  // the end is always drawn
        progress.finish();
    }
    CHECK(h.out.find("\rindexing documents: 100/400 (25%), 100/s, ETA 3 s") != std::string::npos);
    CHECK(h.out.find("101/400") == std::string::npos);
    CHECK(h.out.find("\rindexing documents: 400/400 (100%)") != std::string::npos);
    CHECK(h.out.find('\n') == std::string::npos);
    CHECK(h.out.back() == '\r');  // erased: the cursor is back at the start of a blank line
}

TEST_CASE("piped, each phase is one line as it ends", "[cli][progress]") {
    Harness h;
    Progress progress = h.make(Progress::Style::lines);
    progress.update("parsing c.json", 0, 2'000'000, ProgressUnit::bytes);
    h.advance_ms(500);
    progress.update("parsing c.json", 1'000'000, 2'000'000, ProgressUnit::bytes);
    h.advance_ms(500);
    progress.update("parsing c.json", 2'000'000, 2'000'000, ProgressUnit::bytes);
    progress.update("indexing documents", 0, 50);
    h.advance_ms(2500);
    progress.update("indexing documents", 50, 50);
    progress.update("indexing documents", 50, 50);  // a repeated end is not printed twice
    progress.update("indexing dense", 0, 50);
    h.advance_ms(2);
    progress.update("indexing dense", 20, 50);  // not finished: printed when the next phase begins
    progress.finish();
    CHECK(h.out ==
          "parsing c.json: 2.0 MB in 1.00 s (2.0 MB/s)\n"
          "indexing documents: 50 in 2.50 s (20/s)\n"
          "indexing dense: 20 in 2.0 ms (10000/s)\n");
}

TEST_CASE("the off style writes nothing", "[cli][progress]") {
    Harness h;
    Progress progress = h.make(Progress::Style::off);
    CHECK_FALSE(progress.enabled());
    progress.update("indexing documents", 1, 1);
    CHECK_FALSE(static_cast<bool>(progress.commit_callback()));
    progress.finish();
    CHECK(h.out.empty());
}
