// json_check.cpp: see json_check.hpp. RFC 8259 as nlohmann's strict parser reads it: no comments,
// no trailing commas, strings of well-formed UTF-8 without raw control characters, \u escapes
// with paired surrogates, containers nested at most max_depth deep, and a NUL byte after the
// value ending the text.
#include "util/json_check.hpp"

#include <vector>

#include "util/utf8.hpp"

namespace scout::detail {
namespace {

/// Numbers longer than this many digits, or with an exponent, may overflow a double, which the
/// parser refuses ("number overflow"); whether they do is left to it.
constexpr std::size_t kSureDigits = 300;

class Checker {
public:
    Checker(std::string_view text, std::size_t max_depth) : text_(text), max_depth_(max_depth) {}

    JsonShape run() {
        if (text_.size() >= 3 && byte(0) == 0xEFU && byte(1) == 0xBBU && byte(2) == 0xBFU) {
            return JsonShape::unsure;  // the parser skips a byte-order mark
        }
        skip_space();
        if (at_ >= text_.size() || text_[at_] != '{') {
            return JsonShape::not_object;
        }
        if (!value()) {
            return JsonShape::not_object;
        }
        skip_space();
        // The parser reads a NUL byte as the end of its input, and nothing after it.
        if (at_ != text_.size() && text_[at_] != '\0') {
            return JsonShape::not_object;
        }
        return unsure_ ? JsonShape::unsure : JsonShape::object;
    }

private:
    [[nodiscard]] unsigned byte(std::size_t i) const noexcept {
        return static_cast<unsigned char>(text_[i]);
    }
    [[nodiscard]] bool more() const noexcept { return at_ < text_.size(); }

    void skip_space() noexcept {
        while (more()) {
            const char c = text_[at_];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            ++at_;
        }
    }

    /// One value at at_, containers included, iteratively: open_ holds whether each open
    /// container is an object (growing it may throw).
    bool value() {
        open_.clear();
        for (;;) {
            skip_space();
            if (!more()) {
                return false;
            }
            // A value.
            const char c = text_[at_];
            if (c == '{' || c == '[') {
                if (open_.size() >= max_depth_) {
                    return false;
                }
                ++at_;
                open_.push_back(c == '{');
                skip_space();
                const char close = c == '{' ? '}' : ']';
                if (more() && text_[at_] == close) {
                    ++at_;
                    open_.pop_back();
                } else if (c == '{') {
                    if (!member_key()) {
                        return false;
                    }
                    continue;  // the member's value
                } else {
                    continue;  // the first element
                }
            } else if (!scalar()) {
                return false;
            }
            // After a value: the end, a separator or the close of its container.
            for (;;) {
                if (open_.empty()) {
                    return true;
                }
                skip_space();
                if (!more()) {
                    return false;
                }
                const char next = text_[at_++];
                const bool object = open_.back();
                if (next == ',') {
                    if (object && !member_key()) {
                        return false;
                    }
                    break;  // the next value
                }
                if (next != (object ? '}' : ']')) {
                    return false;
                }
                open_.pop_back();
            }
        }
    }

    /// `"key"` then `:`.
    bool member_key() noexcept {
        skip_space();
        if (!more() || text_[at_] != '"' || !string()) {
            return false;
        }
        skip_space();
        if (!more() || text_[at_] != ':') {
            return false;
        }
        ++at_;
        return true;
    }

    bool scalar() noexcept {
        switch (text_[at_]) {
            case '"':
                return string();
            case 't':
                return literal("true");
            case 'f':
                return literal("false");
            case 'n':
                return literal("null");
            default:
                return number();
        }
    }

    bool literal(std::string_view word) noexcept {
        if (text_.substr(at_, word.size()) != word) {
            return false;
        }
        at_ += word.size();
        return true;
    }

    std::size_t digits() noexcept {
        const std::size_t start = at_;
        while (more() && text_[at_] >= '0' && text_[at_] <= '9') {
            ++at_;
        }
        return at_ - start;
    }

    bool number() noexcept {
        if (text_[at_] == '-') {
            ++at_;
        }
        if (!more()) {
            return false;
        }
        std::size_t count = 0;
        if (text_[at_] == '0') {
            ++at_;
            count = 1;
        } else if (count = digits(); count == 0) {
            return false;
        }
        if (more() && text_[at_] == '.') {
            ++at_;
            const std::size_t fraction = digits();
            if (fraction == 0) {
                return false;
            }
            count += fraction;
        }
        if (more() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            ++at_;
            if (more() && (text_[at_] == '+' || text_[at_] == '-')) {
                ++at_;
            }
            if (digits() == 0) {
                return false;
            }
            unsure_ = true;
        }
        if (count > kSureDigits) {
            unsure_ = true;
        }
        return true;
    }

    /// Four hex digits at at_, as a code unit.
    bool hex4(unsigned& unit) noexcept {
        if (text_.size() - at_ < 4) {
            return false;
        }
        unit = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[at_++];
            unsigned v = 0;
            if (c >= '0' && c <= '9') {
                v = static_cast<unsigned>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                v = static_cast<unsigned>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                v = static_cast<unsigned>(c - 'A' + 10);
            } else {
                return false;
            }
            unit = unit * 16U + v;
        }
        return true;
    }

    bool escape() noexcept {
        if (!more()) {
            return false;
        }
        switch (text_[at_++]) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                return true;
            case 'u': {
                unsigned unit = 0;
                if (!hex4(unit)) {
                    return false;
                }
                if (unit >= 0xDC00U && unit <= 0xDFFFU) {
                    return false;  // a low surrogate with no high one before it
                }
                if (unit >= 0xD800U && unit <= 0xDBFFU) {
                    unsigned low = 0;
                    return text_.size() - at_ >= 2 && text_[at_] == '\\' && text_[at_ + 1] == 'u' &&
                           ((at_ += 2), hex4(low)) && low >= 0xDC00U && low <= 0xDFFFU;
                }
                return true;
            }
            default:
                return false;
        }
    }

    /// A string from its opening quote at at_.
    bool string() noexcept {
        ++at_;
        for (;;) {
            // Plain ASCII, the bulk of any schema, in one tight loop.
            while (more()) {
                const unsigned b = byte(at_);
                if (b < 0x20U || b >= 0x80U || b == '"' || b == '\\') {
                    break;
                }
                ++at_;
            }
            if (!more()) {
                return false;
            }
            const unsigned b = byte(at_);
            if (b == '"') {
                ++at_;
                return true;
            }
            if (b == '\\') {
                ++at_;
                if (!escape()) {
                    return false;
                }
            } else if (b < 0x20U) {
                return false;
            } else {
                const std::size_t n = utf8_sequence_length(text_, at_);
                if (n == 0) {
                    return false;
                }
                at_ += n;
            }
        }
    }

    std::string_view text_;
    std::size_t max_depth_;
    std::size_t at_ = 0;
    bool unsure_ = false;
    std::vector<bool> open_;
};

}  // namespace

JsonShape json_shape(std::string_view text, std::size_t max_depth) noexcept {
    try {
        return Checker(text, max_depth).run();
    } catch (...) {  // the container stack could not grow: let the parser decide
        return JsonShape::unsure;
    }
}

bool is_json_object(std::string_view text, std::size_t max_depth) {
    switch (json_shape(text, max_depth)) {
        case JsonShape::object:
            return true;
        case JsonShape::not_object:
            return false;
        case JsonShape::unsure:
            break;
    }
    auto parsed = parse_json(text, max_depth);
    return parsed.ok() && parsed->is_object();
}

}  // namespace scout::detail
