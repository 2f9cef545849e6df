// enhanced_name_test.cpp: LLM-safe server-qualified names, collisions, truncation, resolution.
#include "document/enhanced_name.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <regex>
#include <set>
#include <unordered_map>

#include <catch2/catch.hpp>

#include "util/hash.hpp"

using scout::ToolKey;
using scout::detail::EnhancedNames;
using scout::detail::sanitize_name_part;

namespace {
bool valid(std::string_view name) {
    static const std::regex re("^[A-Za-z0-9_-]{1,64}$");
    return std::regex_match(name.begin(), name.end(), re);
}

/// The naming rules written plainly (string maps and copies), as EnhancedNames first implemented
/// them: what the table-based EnhancedNames must agree with on every name and every resolve().
class ReferenceNames {
public:
    explicit ReferenceNames(const std::vector<ToolKey>& keys) : names_(keys.size()) {
        std::vector<std::string> plain(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
            plain[i] = sanitize_name_part(keys[i].server) + "_" + sanitize_name_part(keys[i].tool);
        }
        std::vector<std::size_t> order(keys.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            if (keys[a].server.size() != keys[b].server.size()) {
                return keys[a].server.size() > keys[b].server.size();
            }
            if (keys[a].server != keys[b].server) {
                return keys[a].server < keys[b].server;
            }
            return keys[a].tool < keys[b].tool;
        });
        std::vector<std::size_t> deferred;
        for (std::size_t i : order) {
            if (plain[i].size() <= scout::detail::kMaxEnhancedName &&
                by_name_.emplace(plain[i], i).second) {
                names_[i] = plain[i];
            } else {
                deferred.push_back(i);
            }
        }
        for (std::size_t i : deferred) {
            for (unsigned salt = 0;; ++salt) {
                std::string candidate = hashed_name(plain[i], keys[i], salt);
                if (by_name_.emplace(candidate, i).second) {
                    names_[i] = std::move(candidate);
                    break;
                }
            }
        }
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::string server = sanitize_name_part(keys[i].server);
            longest_server_ = std::max(longest_server_, server.size());
            by_server_[server].emplace(sanitize_name_part(keys[i].tool), i);
        }
    }

    [[nodiscard]] const std::string& name(std::size_t i) const { return names_[i]; }

    [[nodiscard]] std::optional<std::size_t> resolve(std::string_view name) const {
        if (auto it = by_name_.find(std::string(name)); it != by_name_.end()) {
            return it->second;
        }
        const std::size_t max_prefix = std::min(longest_server_, name.size());
        for (std::size_t len = max_prefix; len > 0; --len) {
            if (len >= name.size() || name[len] != '_') {
                continue;
            }
            auto server = by_server_.find(std::string(name.substr(0, len)));
            if (server == by_server_.end()) {
                continue;
            }
            const std::string tool = sanitize_name_part(name.substr(len + 1));
            if (auto t = server->second.find(tool); t != server->second.end()) {
                return t->second;
            }
        }
        return std::nullopt;
    }

    static std::string hashed_name(const std::string& plain, const ToolKey& key, unsigned salt) {
        using scout::detail::fnv1a;
        std::uint64_t h = fnv1a(key.tool, fnv1a(std::string_view("\0", 1), fnv1a(key.server)));
        h = scout::detail::mix64(h + salt);
        char hex[9];
        std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(h & 0xFFFFFFFFULL));
        return plain.substr(0, scout::detail::kMaxEnhancedName - 9) + "_" + hex;
    }

private:
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::size_t> by_name_;
    std::unordered_map<std::string, std::unordered_map<std::string, std::size_t>> by_server_;
    std::size_t longest_server_ = 0;
};

/// Name parts that collide once sanitized or joined, prefix each other, need sanitizing, are
/// empty or are too long for a plain name.
const std::vector<std::string> kServerParts{"",
                                            "a",
                                            "a_b",
                                            "a.b",
                                            "a-b",
                                            "ab",
                                            "a_b_c",
                                            "a__b",
                                            "git",
                                            "git_hub",
                                            "git hub",
                                            "my server",
                                            "x_",
                                            "_x",
                                            "\xc3\xa9t\xc3\xa9",
                                            "srv.v2",
                                            std::string(30, 's'),
                                            std::string(58, 's'),
                                            std::string(70, 's')};
const std::vector<std::string> kToolParts{"",
                                          "b",
                                          "c",
                                          "b_c",
                                          "c_d",
                                          "hub_list",
                                          "list",
                                          "do it",
                                          "get/item",
                                          "b.c",
                                          "_",
                                          "x_y",
                                          std::string(6, 't'),
                                          std::string(40, 't'),
                                          std::string(64, 't')};

/// A random part: one of `parts`, or random characters (some needing sanitizing).
std::string random_part(std::mt19937_64& rng, const std::vector<std::string>& parts) {
    static constexpr std::string_view kChars = "ab_.- \xc3";
    if (rng() % 3 != 0) {
        return parts[rng() % parts.size()];
    }
    std::string out(rng() % 9, 'a');
    for (char& c : out) {
        c = kChars[rng() % kChars.size()];
    }
    return out;
}

/// Names to resolve for `keys`: every name, the plain names, hand-written ones with the tool part
/// unsanitized, near misses and random text.
std::vector<std::string> queries_for(const std::vector<ToolKey>& keys,
                                     const ReferenceNames& reference,
                                     std::mt19937_64& rng) {
    std::vector<std::string> queries{"", "_", "a", "a_", "_b", "git_hub_list", "x__y"};
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::string& name = reference.name(i);
        const std::string server = sanitize_name_part(keys[i].server);
        queries.push_back(name);
        queries.push_back(name + "x");
        queries.push_back(name.substr(0, name.size() - 1));
        queries.push_back(server + "_" + sanitize_name_part(keys[i].tool));
        queries.push_back(server + "_" + keys[i].tool);
        queries.push_back(keys[i].server + "_" + keys[i].tool);
        queries.push_back(server + "_" + random_part(rng, kToolParts));
        queries.push_back(random_part(rng, kServerParts) + "_" + random_part(rng, kToolParts));
    }
    return queries;
}

/// Views of `keys` in which equal servers view one string, as the keys of a staged catalog do.
std::vector<scout::detail::ToolKeyView> shared_server_views(const std::vector<ToolKey>& keys,
                                                            std::set<std::string>& servers) {
    std::vector<scout::detail::ToolKeyView> views;
    for (const ToolKey& key : keys) {
        views.push_back({*servers.insert(key.server).first, key.tool});
    }
    return views;
}

void check_same_as_reference(const std::vector<ToolKey>& keys, std::mt19937_64& rng) {
    const ReferenceNames reference(keys);
    const EnhancedNames names(keys);
    std::set<std::string> servers;
    const EnhancedNames from_views(shared_server_views(keys, servers));
    REQUIRE(names.size() == keys.size());
    REQUIRE(from_views.size() == keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        INFO("server '" << keys[i].server << "' tool '" << keys[i].tool << "'");
        REQUIRE(names.name(i) == reference.name(i));
        REQUIRE(from_views.name(i) == reference.name(i));
    }
    for (const std::string& query : queries_for(keys, reference, rng)) {
        INFO("resolving '" << query << "'");
        REQUIRE(names.resolve(query) == reference.resolve(query));
        REQUIRE(from_views.resolve(query) == reference.resolve(query));
    }
}

}  // namespace

TEST_CASE("plain names are server_tool and resolve back", "[names]") {
    const std::vector<ToolKey> keys{{"github", "create_pull_request"}, {"teams", "send_message"}};
    const EnhancedNames names(keys);
    CHECK(names.name(0) == "github_create_pull_request");
    CHECK(names.name(1) == "teams_send_message");
    CHECK(names.resolve("teams_send_message") == std::optional<std::size_t>(1));
    CHECK_FALSE(names.resolve("teams_missing").has_value());
    CHECK_FALSE(names.resolve("").has_value());
}

TEST_CASE("characters outside the allowed set are sanitized", "[names]") {
    const EnhancedNames names(std::vector<ToolKey>{{"My Server.v2", "get/item"}});
    CHECK(names.name(0) == "My_Server_v2_get_item");
    CHECK(valid(names.name(0)));
    CHECK(scout::detail::sanitize_name_part("a b.c/d") == "a_b_c_d");
}

TEST_CASE("colliding names get distinct hashed names, the longest server keeps the plain one",
          "[names]") {
    // Both would be "a_b_c".
    const std::vector<ToolKey> keys{{"a", "b_c"}, {"a_b", "c"}, {"a.b", "c"}};
    const EnhancedNames names(keys);
    // "a_b" and "a.b" are equally long, and "a.b" < "a_b" by byte order, so "a.b" claims it.
    CHECK(names.name(2) == "a_b_c");
    std::set<std::string_view> unique;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        CHECK(valid(names.name(i)));
        unique.insert(names.name(i));
        CHECK(names.resolve(names.name(i)) == std::optional<std::size_t>(i));
    }
    CHECK(unique.size() == keys.size());
}

TEST_CASE("names are independent of input order", "[names]") {
    std::vector<ToolKey> keys{{"a", "b_c"}, {"a_b", "c"}, {"x", "y"}, {"a-b", "c"}};
    const EnhancedNames first(keys);
    std::reverse(keys.begin(), keys.end());
    const EnhancedNames second(keys);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        CHECK(second.name(i) == first.name(keys.size() - 1 - i));
    }
}

TEST_CASE("long names are truncated with a hash and never collide", "[names]") {
    const std::string server(70, 's');
    std::vector<ToolKey> keys;
    for (int i = 0; i < 200; ++i) {
        keys.push_back({server, std::string(40, 't') + std::to_string(i)});
    }
    const EnhancedNames names(keys);
    std::set<std::string_view> unique;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        INFO(names.name(i));
        CHECK(valid(names.name(i)));
        CHECK(names.name(i).size() <= scout::detail::kMaxEnhancedName);
        unique.insert(names.name(i));
        CHECK(names.resolve(names.name(i)) == std::optional<std::size_t>(i));
    }
    CHECK(unique.size() == keys.size());
}

TEST_CASE("unknown names resolve by longest server prefix", "[names]") {
    const std::vector<ToolKey> keys{
        {"git", "hub_list"}, {"git_hub", "list"}, {"my server", "do it"}};
    const EnhancedNames names(keys);
    // A hand-written name with the unsanitized tool part still resolves.
    CHECK(names.resolve("my_server_do it") == std::optional<std::size_t>(2));
    CHECK(names.resolve("git_hub_list") == std::optional<std::size_t>(1));
    CHECK_FALSE(names.resolve("nothing_here").has_value());
}

TEST_CASE("names and resolution agree with the plain reference rules on random keys", "[names]") {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        std::vector<ToolKey> keys(1 + rng() % 120);
        for (ToolKey& key : keys) {
            key = {random_part(rng, kServerParts), random_part(rng, kToolParts)};
        }
        // In any order, repeats included...
        check_same_as_reference(keys, rng);
        // ...and as a staged catalog gives them: by (server, tool), each once.
        std::sort(keys.begin(), keys.end(), [](const ToolKey& a, const ToolKey& b) {
            return std::tie(a.server, a.tool) < std::tie(b.server, b.tool);
        });
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        check_same_as_reference(keys, rng);
    }
}

TEST_CASE("a hashed name taken by another tool's plain name takes the next salt", "[names]") {
    const ToolKey long_key{std::string(70, 's'), "tool"};
    const std::string first_choice = ReferenceNames::hashed_name(
        sanitize_name_part(long_key.server) + "_" + long_key.tool, long_key, 0);
    // "sss...s_1234abcd" split at its first '_' gives a key whose plain name is that name.
    const std::size_t split = first_choice.find('_');
    const std::vector<ToolKey> keys{
        long_key, {first_choice.substr(0, split), first_choice.substr(split + 1)}};
    const EnhancedNames names(keys);
    CHECK(names.name(1) == first_choice);
    CHECK(names.name(0) ==
          ReferenceNames::hashed_name(
              sanitize_name_part(long_key.server) + "_" + long_key.tool, long_key, 1));
    CHECK(names.resolve(names.name(0)) == std::optional<std::size_t>(0));
    CHECK(names.resolve(first_choice) == std::optional<std::size_t>(1));
}

TEST_CASE("names viewed before a move stay valid after it", "[names]") {
    EnhancedNames names(std::vector<ToolKey>{{"a", "b"}});  // a name short enough to sit inline
    const std::string_view before = names.name(0);
    const EnhancedNames moved(std::move(names));
    CHECK(before.data() == moved.name(0).data());
    CHECK(before == "a_b");
}
