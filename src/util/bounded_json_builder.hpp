// bounded_json_builder.hpp: the SAX handler behind parse_json and parse_json_pruned. It builds
// the value itself, counting open containers, so the depth check happens before anything deep
// exists. Header-only so that the library (util/json_limits.cpp) and the public MCP layer
// (mcp/json_limits.cpp, which links no internal symbol) compile the same parser.
#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scout/status.hpp"

namespace scout::detail::bounded_json {

using Json = nlohmann::json;

/// The message of a refusal for nesting deeper than `max_depth`.
inline std::string too_deep_text(std::size_t max_depth) {
    return "JSON nested deeper than " + std::to_string(max_depth) + " levels";
}

/// True when `value` is, or holds, a placeholder of a pruned value.
inline bool holds_discarded(const Json& value) {
    if (value.is_discarded()) {
        return true;
    }
    if (value.is_structured()) {
        for (const auto& child : value) {
            if (holds_discarded(child)) {
                return true;
            }
        }
    }
    return false;
}

/// Parser messages can quote a whole token (a 16 MB string); keep them readable.
inline constexpr std::size_t kMaxMessageBytes = 200;

class Builder {
public:
    Builder(std::size_t max_depth, bool prune) : max_depth_(max_depth), prune_(prune) {}

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

/// Feeds `text` to `builder`; the status of the parse.
/// Runs `parse` (a call of Json::sax_parse into `builder`, returning its result) and turns the
/// outcome into a Status: the caller chooses the input iterators (util/json_limits.cpp counts
/// bytes for progress).
template <class Parse>
Status run_with(const Parse& parse, Builder& builder, std::size_t max_depth) {
    bool ok = false;
    try {
        ok = parse();
    } catch (const std::exception& e) {  // allocation failure; the SAX path reports the rest
        return Status{Errc::invalid_argument, std::string("malformed JSON: ") + e.what()};
    }
    if (builder.too_deep()) {
        return Status{Errc::invalid_argument, too_deep_text(max_depth)};
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

inline Status run(std::string_view text, Builder& builder, std::size_t max_depth) {
    return run_with(
        [&] { return Json::sax_parse(text.begin(), text.end(), &builder); }, builder, max_depth);
}

}  // namespace scout::detail::bounded_json
