// json_limits.cpp: see json_limits.hpp. A SAX handler builds the value itself, counting open
// containers, so the depth check happens before anything deep exists.
#include "util/json_limits.hpp"

#include <iterator>
#include <vector>

namespace scout::detail {

std::string too_deep_message(std::size_t max_depth) {
    return "JSON nested deeper than " + std::to_string(max_depth) + " levels";
}

namespace {

using Json = nlohmann::json;

/// Parser messages can quote a whole token (a 16 MB string); keep them readable.
constexpr std::size_t kMaxMessageBytes = 200;

class BoundedBuilder {
public:
    BoundedBuilder(std::size_t max_depth, bool prune) : max_depth_(max_depth), prune_(prune) {}

    bool null() { return put(Json(nullptr)); }
    bool boolean(bool v) { return put(Json(v)); }
    bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
    bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
    bool number_float(Json::number_float_t v, const Json::string_t&) { return put(Json(v)); }
    bool string(Json::string_t& v) { return put(Json(std::move(v))); }
    bool binary(Json::binary_t& v) { return put(Json::binary(std::move(v))); }
    bool start_object(std::size_t) { return open(Json::value_t::object); }
    bool start_array(std::size_t) { return open(Json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(Json::string_t& k) {
        if (skipping_ == 0) {
            key_ = std::move(k);
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const Json::exception& e) {
        error_ = e.what();
        return false;
    }

    Json& root() { return root_; }
    [[nodiscard]] std::size_t pruned() const { return pruned_; }
    [[nodiscard]] bool too_deep() const { return too_deep_; }
    [[nodiscard]] const std::string& error() const { return error_; }

private:
    /// Adds `v` where the parser is (array element, object member or root); the new slot.
    Json* place(Json&& v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        Json& top = *stack_.back();
        if (top.is_array()) {
            top.push_back(std::move(v));
            return &top.back();
        }
        Json& slot = top[key_];
        slot = std::move(v);
        return &slot;
    }

    bool put(Json&& v) {
        if (skipping_ == 0) {
            place(std::move(v));
        }
        return true;
    }

    bool open(Json::value_t type) {
        if (skipping_ > 0) {
            ++skipping_;
            return true;
        }
        if (stack_.size() >= max_depth_) {
            if (!prune_) {
                too_deep_ = true;
                return false;
            }
            place(Json(Json::value_t::discarded));
            ++pruned_;
            skipping_ = 1;
            return true;
        }
        stack_.push_back(place(Json(type)));
        return true;
    }

    bool close() {
        if (skipping_ > 0) {
            --skipping_;
        } else if (!stack_.empty()) {
            stack_.pop_back();
        }
        return true;
    }

    std::size_t max_depth_;
    bool prune_;
    Json root_;
    std::vector<Json*> stack_;  ///< open containers; each points into its parent, which is not
                                ///< modified until the child is closed
    std::string key_;
    std::size_t skipping_ = 0;  ///< levels open inside a pruned value
    std::size_t pruned_ = 0;
    bool too_deep_ = false;
    std::string error_;
};

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

Status run(std::string_view text,
           BoundedBuilder& builder,
           std::size_t max_depth,
           const ParseProgress& progress = {}) {
    bool ok = false;
    try {
        if (progress) {
            const char* begin = text.data();
            const char* end = begin + text.size();
            progress(0, text.size());
            ok = Json::sax_parse(CountingIterator(begin, begin, &progress, text.size()),
                                 CountingIterator(end, begin, &progress, text.size()),
                                 &builder);
            if (ok) {
                progress(text.size(), text.size());
            }
        } else {
            ok = Json::sax_parse(text.begin(), text.end(), &builder);
        }
    } catch (const std::exception& e) {  // allocation failure; the SAX path reports the rest
        return Status{Errc::invalid_argument, std::string("malformed JSON: ") + e.what()};
    }
    if (builder.too_deep()) {
        return Status{Errc::invalid_argument, too_deep_message(max_depth)};
    }
    if (!ok) {
        std::string message =
            builder.error().empty() ? "malformed JSON" : "malformed JSON: " + builder.error();
        if (message.size() > kMaxMessageBytes) {
            message.resize(kMaxMessageBytes);
            message += "...";
        }
        return Status{Errc::invalid_argument, std::move(message)};
    }
    return {};
}

}  // namespace

Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
    BoundedBuilder builder(max_depth, false);
    if (Status s = run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return std::move(builder.root());
}

Result<nlohmann::json> parse_json(std::string_view text,
                                  std::size_t max_depth,
                                  const ParseProgress& progress) {
    BoundedBuilder builder(max_depth, false);
    if (Status s = run(text, builder, max_depth, progress); !s.ok()) {
        return s;
    }
    return std::move(builder.root());
}

Result<PrunedJson> parse_json_pruned(std::string_view text, std::size_t max_depth) {
    BoundedBuilder builder(max_depth, true);
    if (Status s = run(text, builder, max_depth); !s.ok()) {
        return s;
    }
    return PrunedJson{std::move(builder.root()), builder.pruned()};
}

bool has_pruned(const nlohmann::json& value) {
    if (value.is_discarded()) {
        return true;
    }
    if (value.is_structured()) {
        for (const auto& child : value) {
            if (has_pruned(child)) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace scout::detail
