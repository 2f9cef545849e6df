// sse_reader.cpp: see sse_reader.hpp.
#include "sse_reader.hpp"

namespace scout::gateway {

bool SseReader::feed(std::string_view bytes, const EventFn& on_event) {
    if (!error_.empty()) {
        return false;
    }
    while (!bytes.empty()) {
        if (after_cr_) {
            after_cr_ = false;
            if (bytes.front() == '\n') {
                bytes.remove_prefix(1);
                continue;
            }
        }
        const std::size_t end = bytes.find_first_of("\r\n");
        const std::string_view piece = bytes.substr(0, end);
        if (partial_.size() + piece.size() > limits_.max_line) {
            error_ = "a line is over " + std::to_string(limits_.max_line) + " bytes";
            return false;
        }
        if (end == std::string_view::npos) {
            partial_.append(piece);
            return true;
        }
        after_cr_ = bytes[end] == '\r';
        bytes.remove_prefix(end + 1);
        bool ok = true;
        if (partial_.empty()) {
            ok = line(piece, on_event);
        } else {
            partial_.append(piece);
            ok = line(partial_, on_event);
            partial_.clear();
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

void SseReader::finish(const EventFn& on_event) {
    if (!error_.empty()) {
        return;
    }
    if (!partial_.empty()) {
        const std::string last = std::move(partial_);
        partial_.clear();
        if (!line(last, on_event)) {
            return;
        }
    }
    (void)line({}, on_event);
}

bool SseReader::line(std::string_view text, const EventFn& on_event) {
    if (text.empty()) {  // the end of an event
        if (has_data_) {
            last_id_ = id_;
            on_event(std::move(data_));
        }
        data_.clear();
        has_data_ = false;
        return true;
    }
    const std::size_t colon = text.find(':');
    if (colon == 0) {
        return true;  // a comment (keep-alive)
    }
    const std::string_view field = text.substr(0, colon);
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    if (field == "data") {
        if (data_.size() + value.size() + 1 > limits_.max_event) {
            error_ = "an event is over " + std::to_string(limits_.max_event) + " bytes";
            return false;
        }
        if (has_data_) {
            data_ += '\n';
        }
        data_.append(value);
        has_data_ = true;
    } else if (field == "id" && value.find('\0') == std::string_view::npos) {
        id_ = std::string(value);
    }
    return true;
}

}  // namespace scout::gateway
