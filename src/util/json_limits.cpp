// json_limits.cpp: see json_limits.hpp; the parser itself is util/bounded_json_builder.hpp.
#include "util/json_limits.hpp"

#include <iterator>
#include <utility>

#include "util/bounded_json_builder.hpp"

namespace scout::detail {
namespace {

/// A character iterator over the text that reports its position every kProgressStepBytes:
/// nlohmann's parser reads through it, so progress needs no second pass and no parser change.
class CountingIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CountingIterator(const char* at,
                     const char* begin,
                     const ParseProgress* progress,
                     std::size_t total)
        : at_(at), begin_(begin), progress_(progress), total_(total) {}
    reference operator*() const { return *at_; }
    CountingIterator& operator++() {
        ++at_;
        if (const auto done = static_cast<std::size_t>(at_ - begin_);
            done % kProgressStepBytes == 0) {
            (*progress_)(done, total_);
        }
        return *this;
    }
    CountingIterator operator++(int) {
        CountingIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const CountingIterator& other) const { return at_ == other.at_; }
    bool operator!=(const CountingIterator& other) const { return at_ != other.at_; }

private:
    const char* at_;
    const char* begin_;
    const ParseProgress* progress_;
    std::size_t total_;
};

}  // namespace

std::string too_deep_message(std::size_t max_depth) {
    return bounded_json::too_deep_text(max_depth);
}

Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
    bounded_json::Builder builder(max_depth, false);
    if (Status s = bounded_json::run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return std::move(builder.root());
}

Result<nlohmann::json> parse_json(std::string_view text,
                                  std::size_t max_depth,
                                  const ParseProgress& progress) {
    if (!progress) {
        return parse_json(text, max_depth);
    }
    bounded_json::Builder builder(max_depth, false);
    const char* begin = text.data();
    const char* end = begin + text.size();
    progress(0, text.size());
    const auto parse = [&] {
        return bounded_json::Json::sax_parse(CountingIterator(begin, begin, &progress, text.size()),
                                             CountingIterator(end, begin, &progress, text.size()),
                                             &builder);
    };
    if (Status s = bounded_json::run_with(parse, builder, max_depth); !s.ok()) {
        return s;
    }
    progress(text.size(), text.size());
    return std::move(builder.root());
}

Result<PrunedJson> parse_json_pruned(std::string_view text, std::size_t max_depth) {
    bounded_json::Builder builder(max_depth, true);
    if (Status s = bounded_json::run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return PrunedJson{std::move(builder.root()), builder.pruned()};
}

bool has_pruned(const nlohmann::json& value) {
    return bounded_json::holds_discarded(value);
}

}  // namespace scout::detail
