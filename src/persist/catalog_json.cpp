// catalog_json.cpp: see catalog_json.hpp. A SAX handler with a stack of the containers it is in
// (root object, server list, server, tool list, tool); a value it does not need is skipped by
// counting the levels open inside it.
#include "persist/catalog_json.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/json_limits.hpp"

namespace scout::detail {
namespace {

using Json = nlohmann::json;

enum class Ctx : std::uint8_t { root, servers, server, tools, tool };

/// What the value after the current key is for.
enum class Next : std::uint8_t { none, skip, text, servers, tools };

constexpr std::uint8_t kServerFields =
    6;                                   // name, description, category, environment, status, tools
constexpr std::uint8_t kToolFields = 5;  // name, title, description, input_schema, annotations
constexpr std::uint8_t all_bits(std::uint8_t fields) {
    return static_cast<std::uint8_t>((1U << fields) - 1U);
}

class CatalogReader {
public:
    bool null() { return scalar(); }
    bool boolean(bool) { return scalar(); }
    bool number_integer(Json::number_integer_t) { return scalar(); }
    bool number_unsigned(Json::number_unsigned_t) { return scalar(); }
    bool number_float(Json::number_float_t, const Json::string_t&) { return scalar(); }
    bool binary(Json::binary_t&) { return scalar(); }

    bool string(Json::string_t& v) {
        if (skip_ > 0) {
            return true;
        }
        if (next_ == Next::text) {
            *target_ = v;  // a copy is sized to the text; the parser's buffer is not
            *seen_ = static_cast<std::uint8_t>(*seen_ | bit_);
            next_ = Next::none;
            return true;
        }
        return scalar();
    }

    bool key(Json::string_t& k) {
        if (skip_ > 0) {
            return true;
        }
        next_ = Next::skip;
        switch (ctx_.back()) {
            case Ctx::root:
                if (k == "servers") {
                    next_ = Next::servers;
                }
                break;
            case Ctx::server: {
                ServerSpec& s = spec_.servers.back();
                if (k == "name") {
                    text_field(&s.name, &server_seen_, 0);
                } else if (k == "description") {
                    text_field(&s.description, &server_seen_, 1);
                } else if (k == "category") {
                    text_field(&s.category, &server_seen_, 2);
                } else if (k == "environment") {
                    text_field(&s.environment, &server_seen_, 3);
                } else if (k == "status") {
                    text_field(&status_, &server_seen_, 4);
                } else if (k == "tools") {
                    next_ = Next::tools;
                }
                break;
            }
            case Ctx::tool: {
                ToolSpec& t = spec_.servers.back().tools.back();
                if (k == "name") {
                    text_field(&t.name, &tool_seen_, 0);
                } else if (k == "title") {
                    text_field(&t.title, &tool_seen_, 1);
                } else if (k == "description") {
                    text_field(&t.description, &tool_seen_, 2);
                } else if (k == "input_schema") {
                    text_field(&t.input_schema, &tool_seen_, 3);
                } else if (k == "annotations") {
                    text_field(&t.annotations, &tool_seen_, 4);
                }
                break;
            }
            case Ctx::servers:
            case Ctx::tools:
                break;
        }
        return true;
    }

    bool start_object(std::size_t) {
        if (!deeper()) {
            return false;
        }
        if (skip_ > 0 || next_ == Next::skip) {
            ++skip_;
            return true;
        }
        if (ctx_.empty()) {
            ctx_.push_back(Ctx::root);
            return true;
        }
        if (ctx_.back() == Ctx::servers) {
            spec_.servers.emplace_back();
            server_seen_ = 0;
            ctx_.push_back(Ctx::server);
            return true;
        }
        if (ctx_.back() == Ctx::tools) {
            spec_.servers.back().tools.emplace_back();
            tool_seen_ = 0;
            ctx_.push_back(Ctx::tool);
            return true;
        }
        return fail(next_ == Next::servers ? "the server list must be an array"
                                           : "a server's tools must be an array");
    }

    bool start_array(std::size_t) {
        if (!deeper()) {
            return false;
        }
        if (skip_ > 0 || next_ == Next::skip) {
            ++skip_;
            return true;
        }
        if (next_ == Next::servers) {  // a repeated member keeps its last value
            spec_.servers.clear();
            servers_seen_ = true;
            ctx_.push_back(Ctx::servers);
            next_ = Next::none;
            return true;
        }
        if (next_ == Next::tools) {
            spec_.servers.back().tools.clear();
            server_seen_ = static_cast<std::uint8_t>(server_seen_ | (1U << 5U));
            ctx_.push_back(Ctx::tools);
            next_ = Next::none;
            return true;
        }
        return fail(ctx_.empty() ? "the catalog must be a JSON object" : "unexpected array");
    }

    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool parse_error(std::size_t, const std::string&, const Json::exception& e) {
        return fail(e.what());
    }

    [[nodiscard]] bool complete() const { return servers_seen_; }
    [[nodiscard]] const std::string& error() const { return error_; }
    CatalogSpec& spec() { return spec_; }

private:
    void text_field(std::string* target, std::uint8_t* seen, unsigned bit) {
        next_ = Next::text;
        target_ = target;
        seen_ = seen;
        bit_ = static_cast<std::uint8_t>(1U << bit);
    }

    bool scalar() {
        if (skip_ > 0) {
            return true;
        }
        if (next_ == Next::skip) {
            next_ = Next::none;
            return true;
        }
        switch (next_) {
            case Next::text:
                return fail("a server or tool field must be a string");
            case Next::servers:
                return fail("the server list must be an array");
            case Next::tools:
                return fail("a server's tools must be an array");
            default:
                return fail(ctx_.empty() ? "the catalog must be a JSON object"
                                         : "servers and tools must be JSON objects");
        }
    }

    bool deeper() {
        if (ctx_.size() + skip_ >= kMaxJsonDepth) {
            return fail(too_deep_message());
        }
        return true;
    }

    bool close() {
        if (skip_ > 0) {
            if (--skip_ == 0) {
                next_ = Next::none;
            }
            return true;
        }
        const Ctx done = ctx_.back();
        ctx_.pop_back();
        next_ = Next::none;
        if (done == Ctx::tool && tool_seen_ != all_bits(kToolFields)) {
            return fail("a tool of server '" + spec_.servers.back().name +
                        "' lacks a string name, title, description, input_schema or annotations");
        }
        if (done == Ctx::server) {
            if (server_seen_ != all_bits(kServerFields)) {
                return fail(
                    "a server lacks a string name, description, category, environment "
                    "or status, or a tool list");
            }
            auto status = parse_server_status(status_);
            if (!status) {
                return fail("server '" + spec_.servers.back().name + "' has an unknown status");
            }
            spec_.servers.back().status = *status;
        }
        return true;
    }

    bool fail(std::string message) {
        if (error_.empty()) {
            error_ = std::move(message);
        }
        return false;
    }

    CatalogSpec spec_;
    std::vector<Ctx> ctx_;
    Next next_ = Next::none;
    std::size_t skip_ = 0;  ///< levels open inside a skipped value
    std::string* target_ = nullptr;
    std::uint8_t* seen_ = nullptr;
    std::uint8_t bit_ = 0;
    std::uint8_t server_seen_ = 0;
    std::uint8_t tool_seen_ = 0;
    bool servers_seen_ = false;
    std::string status_;
    std::string error_;
};

}  // namespace

Result<CatalogSpec> read_catalog_json(std::string_view text) {
    CatalogReader reader;
    bool ok = false;
    try {
        ok = Json::sax_parse(text.begin(), text.end(), &reader);
    } catch (const std::exception& e) {  // allocation failure; the SAX path reports the rest
        return Status{Errc::invalid_argument, std::string("malformed JSON: ") + e.what()};
    }
    if (!ok) {
        std::string message = reader.error().empty() ? "malformed JSON" : reader.error();
        if (message.size() > 200) {  // a parser message can quote a whole token
            message.resize(200);
            message += "...";
        }
        return Status{Errc::invalid_argument, std::move(message)};
    }
    if (!reader.complete()) {
        return Status{Errc::invalid_argument, "the catalog has no server list"};
    }
    return std::move(reader.spec());
}

}  // namespace scout::detail
