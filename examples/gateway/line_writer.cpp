// line_writer.cpp: see line_writer.hpp.
#include "line_writer.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace scout::gateway {

LineWriter::LineWriter(int fd, std::size_t max_queued_bytes, bool owns_fd)
    : fd_(fd),
      owns_fd_(owns_fd),
      blocking_fd_((::fcntl(fd, F_GETFL) & O_NONBLOCK) == 0),
      max_bytes_(max_queued_bytes) {
    thread_ = std::thread([this] { run(); });
}

LineWriter::~LineWriter() {
    close();
}

Status LineWriter::send(std::string line, std::uint64_t tag, WhenFull when_full) {
    line += '\n';
    std::unique_lock lock(mutex_);
    auto has_room = [&] {
        return queue_.empty() || queued_bytes_ + line.size() <= max_bytes_ || closed_ || broken_;
    };
    if (when_full == WhenFull::wait && !no_wait_) {
        cv_.wait(lock, [&] { return has_room() || no_wait_; });
    }
    if (closed_) {
        return Status{Errc::unavailable, "the connection is closed"};
    }
    if (broken_) {
        return Status{Errc::unavailable, "the peer closed its input"};
    }
    if (!has_room()) {
        return Status{Errc::unavailable,
                      "the peer is not reading its input (" + std::to_string(queued_bytes_) +
                          " bytes queued)"};
    }
    queued_bytes_ += line.size();
    queue_.push_back(Item{std::move(line), tag});
    cv_.notify_all();
    return {};
}

bool LineWriter::withdraw(std::uint64_t tag) {
    std::lock_guard lock(mutex_);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
        if (it->tag == tag) {
            if (it == queue_.begin() && (writing_front_ || front_written_ > 0)) {
                return false;  // half written: the rest must follow or the stream is corrupt
            }
            queued_bytes_ -= it->data.size();
            queue_.erase(it);
            cv_.notify_all();
            return true;
        }
    }
    return false;
}

bool LineWriter::flush(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return cv_.wait_until(lock, deadline, [&] { return queue_.empty() || broken_ || closed_; });
}

void LineWriter::release_waiters() {
    std::lock_guard lock(mutex_);
    no_wait_ = true;
    cv_.notify_all();
}

void LineWriter::close() {
    {
        std::lock_guard lock(mutex_);
        if (closed_) {
            return;
        }
        closed_ = true;
        cv_.notify_all();
    }
    wake_.wake();
    if (thread_.joinable()) {
        thread_.join();
    }
    std::lock_guard lock(mutex_);
    queue_.clear();
    queued_bytes_ = 0;
    if (owns_fd_ && fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

void LineWriter::run() {
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return !queue_.empty() || closed_; });
            if (closed_ || broken_) {
                return;
            }
        }
        pollfd fds[2] = {{fd_, POLLOUT, 0}, {wake_.fd(), POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            fds[0].revents = POLLERR;
        }
        if (fds[1].revents != 0) {
            wake_.drain();
            continue;  // close() or a spurious wake: the loop re-checks
        }
        if ((fds[0].revents & POLLOUT) != 0 && write_front()) {
            continue;
        }
        if ((fds[0].revents & (POLLERR | POLLHUP | POLLNVAL | POLLOUT)) != 0) {
            std::lock_guard lock(mutex_);
            broken_ = true;
            queue_.clear();
            queued_bytes_ = 0;
            cv_.notify_all();
            return;
        }
    }
}

/// Writes what it can of the front line; false when the peer is gone.
bool LineWriter::write_front() {
    const char* data = nullptr;
    std::size_t left = 0;
    {
        std::lock_guard lock(mutex_);
        if (queue_.empty()) {
            return true;  // withdrawn meanwhile
        }
        // The front stays in place while its bytes are written: withdraw() refuses it and
        // nothing else removes it.
        data = queue_.front().data.data() + front_written_;
        left = queue_.front().data.size() - front_written_;
        writing_front_ = true;
    }
    if (blocking_fd_) {
        left = std::min<std::size_t>(left, PIPE_BUF);
    }
    const ssize_t n = ::write(fd_, data, left);
    std::lock_guard lock(mutex_);
    writing_front_ = false;
    if (n < 0) {
        return errno == EAGAIN || errno == EINTR;
    }
    front_written_ += static_cast<std::size_t>(n);
    if (front_written_ == queue_.front().data.size()) {
        queued_bytes_ -= queue_.front().data.size();
        queue_.pop_front();
        front_written_ = 0;
        cv_.notify_all();
    }
    return true;
}

}  // namespace scout::gateway
