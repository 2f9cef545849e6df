// line_writer.hpp: writes lines to a pipe from a thread of its own, through a queue bounded in
// bytes, so no caller ever blocks on a peer that stops reading: a backend that no longer reads
// its stdin fills its queue and further sends fail at once, while the caller's own deadline
// keeps running. Queued lines that were not started can be withdrawn (a request that timed out
// before the backend saw it need not be sent at all).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>

#include "scout/status.hpp"

#include "line_reader.hpp"

namespace scout::gateway {

/// The process must ignore SIGPIPE: a peer that closed its end is then an error, not a death.
class LineWriter {
public:
    /// What send() does when the queue is full.
    enum class WhenFull {
        fail,  ///< return unavailable at once
        wait,  ///< wait for room (back-pressure), until release_waiters() or close()
    };

    /// Starts the writing thread. `fd` may be blocking (stdout) or not (a child's stdin); on a
    /// blocking one, writes are cut to PIPE_BUF so one never blocks after poll() said writable.
    /// `owns_fd`: close() closes it (for a child's stdin, that is the EOF asking it to exit).
    LineWriter(int fd, std::size_t max_queued_bytes, bool owns_fd);
    ~LineWriter();
    LineWriter(const LineWriter&) = delete;
    LineWriter& operator=(const LineWriter&) = delete;

    /// Queues `line` plus '\n'. A line longer than the whole bound is accepted when the queue is
    /// empty. unavailable when closed, when the peer closed its end, or when full (fail mode).
    [[nodiscard]] Status send(std::string line,
                              std::uint64_t tag = 0,
                              WhenFull when_full = WhenFull::fail);
    /// Removes the queued line sent with `tag` if no byte of it was written yet.
    bool withdraw(std::uint64_t tag);
    /// Waits until the queue is empty (or the peer is gone), at most until `deadline`.
    bool flush(std::chrono::steady_clock::time_point deadline);
    /// From now on, senders in wait mode no longer wait: a full queue drops their line.
    void release_waiters();
    /// Stops the thread and drops what is still queued; closes the fd when owned. Idempotent.
    void close();

private:
    struct Item {
        std::string data;
        std::uint64_t tag = 0;
    };
    void run();
    bool write_front();

    int fd_;
    bool owns_fd_;
    bool blocking_fd_;
    std::size_t max_bytes_;
    WakePipe wake_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::list<Item> queue_;  ///< a list: withdrawing from the middle keeps the front in place
    std::size_t queued_bytes_ = 0;
    std::size_t front_written_ = 0;  ///< bytes of queue_.front() already written
    bool writing_front_ = false;     ///< the thread is writing queue_.front() unlocked
    bool closed_ = false;
    bool broken_ = false;
    bool no_wait_ = false;
    std::thread thread_;
};

}  // namespace scout::gateway
