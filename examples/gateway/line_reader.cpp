// line_reader.cpp: see line_reader.hpp.
#include "line_reader.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace scout::gateway {

void LineSplitter::compact() {
    // Erasing per line would move the rest of a many-line chunk once per line.
    if (start_ > 0 && start_ >= buffer_.size() / 2) {
        buffer_.erase(0, start_);
        scan_ -= start_;
        start_ = 0;
    }
}

std::optional<LineEvent> LineSplitter::next() {
    const std::size_t nl = buffer_.find('\n', std::max(scan_, start_));
    if (discarding_) {
        if (nl == std::string::npos) {
            discarded_ += buffer_.size() - start_;
            buffer_.clear();
            start_ = scan_ = 0;
            return std::nullopt;
        }
        LineEvent event{LineEvent::Kind::oversized, {}, discarded_ + (nl - start_)};
        start_ = scan_ = nl + 1;
        discarding_ = false;
        discarded_ = 0;
        compact();
        return event;
    }
    if (nl == std::string::npos) {
        if (buffer_.size() - start_ > max_bytes_ + 1) {  // + 1: room for a '\r' before the '\n'
            discarding_ = true;
            discarded_ = buffer_.size() - start_;
            std::string().swap(buffer_);  // give the memory back, not just the size
            start_ = scan_ = 0;
        } else {
            scan_ = buffer_.size();
            compact();
        }
        return std::nullopt;
    }
    std::size_t end = nl;
    if (end > start_ && buffer_[end - 1] == '\r') {
        --end;
    }
    LineEvent event;
    if (end - start_ > max_bytes_) {
        event = LineEvent{LineEvent::Kind::oversized, {}, end - start_};
    } else {
        event =
            LineEvent{LineEvent::Kind::line, buffer_.substr(start_, end - start_), end - start_};
    }
    start_ = scan_ = nl + 1;
    compact();
    return event;
}

std::optional<LineEvent> LineSplitter::finish() {
    const std::size_t bytes = pending_bytes();
    if (bytes == 0) {
        return std::nullopt;
    }
    LineEvent event;
    if (discarding_ || bytes > max_bytes_) {
        event = LineEvent{LineEvent::Kind::oversized, {}, bytes};
    } else {
        event = LineEvent{LineEvent::Kind::line, buffer_.substr(start_), bytes};
        if (!event.text.empty() && event.text.back() == '\r') {
            event.text.pop_back();
        }
    }
    buffer_.clear();
    start_ = scan_ = 0;
    discarding_ = false;
    discarded_ = 0;
    return event;
}

WakePipe::WakePipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    read_fd_ = fds[0];
    write_fd_ = fds[1];
}

WakePipe::~WakePipe() {
    ::close(read_fd_);
    ::close(write_fd_);
}

void WakePipe::wake() const noexcept {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(write_fd_, &byte, 1);  // full pipe: already awake
}

bool WakePipe::drain() const noexcept {
    char buf[64];
    bool woken = false;
    while (::read(read_fd_, buf, sizeof buf) > 0) {
        woken = true;
    }
    return woken;
}

ssize_t read_or_wake(int fd, const WakePipe& wake, char* buf, std::size_t n, int timeout_ms) {
    for (;;) {
        pollfd fds[2] = {{fd, POLLIN, 0}, {wake.fd(), POLLIN, 0}};
        const int ready = ::poll(fds, 2, timeout_ms);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            return 0;
        }
        if (ready == 0) {
            return kTimedOut;
        }
        if (fds[1].revents != 0) {
            return kWoken;
        }
        const ssize_t got = ::read(fd, buf, n);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        return got < 0 ? 0 : got;
    }
}

}  // namespace scout::gateway
