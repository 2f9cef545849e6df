// line_reader.hpp: reading one-message-per-line streams (the client's stdin, a backend's stdout)
// with bounded memory and a way to interrupt the wait. A line over the limit is dropped while it
// streams in and reported once, so a peer sending 300 MB without a newline costs one buffer.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace scout::gateway {

/// One piece of a stream: a complete line (without '\n' and a trailing '\r'), or the notice
/// that a line longer than the limit was dropped (`bytes` long, newline excluded).
struct LineEvent {
    enum class Kind { line, oversized };
    Kind kind = Kind::line;
    std::string text;
    std::size_t bytes = 0;
};

/// Splits bytes into lines of at most `max_bytes`. Holds at most max_bytes plus one fed chunk.
/// Not thread-safe.
class LineSplitter {
public:
    explicit LineSplitter(std::size_t max_bytes) : max_bytes_(max_bytes) {}

    /// Adds bytes read from the stream. Drain next() before feeding again.
    void feed(std::string_view bytes) { buffer_.append(bytes); }
    /// The next complete event, or nullopt until more bytes come.
    [[nodiscard]] std::optional<LineEvent> next();
    /// At the end of the stream, after next() ran dry: the unterminated last line, if any.
    [[nodiscard]] std::optional<LineEvent> finish();
    /// Bytes of an unfinished line at the end of the stream (0 when it ended cleanly).
    [[nodiscard]] std::size_t pending_bytes() const noexcept {
        return discarding_ ? discarded_ + buffer_.size() - start_ : buffer_.size() - start_;
    }

private:
    void compact();

    std::size_t max_bytes_;
    std::string buffer_;
    std::size_t start_ = 0;  ///< where the unfinished line begins in buffer_
    std::size_t scan_ = 0;   ///< bytes of buffer_ already searched for '\n'
    bool discarding_ = false;
    std::size_t discarded_ = 0;  ///< bytes of the oversized line dropped so far
};

/// A self-pipe: wake() makes fd() readable, so a thread waiting in poll() can be interrupted.
/// Both ends are non-blocking and close-on-exec.
class WakePipe {
public:
    WakePipe();
    ~WakePipe();
    WakePipe(const WakePipe&) = delete;
    WakePipe& operator=(const WakePipe&) = delete;

    /// Async-signal-safe.
    void wake() const noexcept;
    [[nodiscard]] int fd() const noexcept { return read_fd_; }
    /// True when wake() was called since the last drain.
    bool drain() const noexcept;

private:
    int read_fd_ = -1;
    int write_fd_ = -1;
};

/// What read_or_wake returns besides a byte count (0 is the end of the stream or a read error).
inline constexpr ssize_t kWoken = -1;
inline constexpr ssize_t kTimedOut = -2;

/// Reads up to `n` bytes from `fd`, waiting until it is readable, `wake` fires (kWoken) or
/// `timeout_ms` passes (kTimedOut; -1 waits for ever).
[[nodiscard]] ssize_t read_or_wake(
    int fd, const WakePipe& wake, char* buf, std::size_t n, int timeout_ms = -1);

}  // namespace scout::gateway
