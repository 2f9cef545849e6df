// values.cpp: see values.hpp.
#include "args/values.hpp"

#include <charconv>
#include <limits>

namespace scout::args {
namespace {

/// Texts longer than this are not echoed whole in a message.
constexpr std::size_t kMaxEcho = 40;

std::string echo(std::string_view text) {
    return text.size() <= kMaxEcho ? std::string(text)
                                   : std::string(text.substr(0, kMaxEcho)) + "...";
}

std::string range(std::uint64_t min, std::uint64_t max) {
    if (max == std::numeric_limits<std::uint64_t>::max()) {
        return min == 0 ? "a whole number" : "a whole number of at least " + std::to_string(min);
    }
    return std::to_string(min) + ".." + std::to_string(max);
}

}  // namespace

std::string read_whole(std::string_view text,
                       std::uint64_t min,
                       std::uint64_t max,
                       std::uint64_t& out) {
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool whole = !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
    if (!whole || value < min || value > max) {
        return "must be " + range(min, max) + " (got " + echo(text) + ")";
    }
    out = value;
    return "";
}

}  // namespace scout::args
