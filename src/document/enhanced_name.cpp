// enhanced_name.cpp: "{sanitized_server}_{tool}" names, collision-safe and <= 64 characters.
#include "document/enhanced_name.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "util/hash.hpp"

namespace scout::detail {
namespace {

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

std::string hex8(std::uint64_t v) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(v & 0xFFFFFFFFULL));
    return buf;
}

/// A hashed name: the plain name cut short, then "_" and 8 hex digits of the key's hash.
/// `salt` picks other hash bits in the (astronomically rare) case of a second collision.
std::string hashed_name(const std::string& plain, const ToolKey& key, unsigned salt) {
    std::uint64_t h = fnv1a(key.tool, fnv1a(std::string_view("\0", 1), fnv1a(key.server)));
    h = mix64(h + salt);
    std::string name = plain.substr(0, kMaxEnhancedName - 9);
    name.push_back('_');
    name.append(hex8(h));
    return name;
}

}  // namespace

std::string sanitize_name_part(std::string_view part) {
    std::string out(part);
    for (char& c : out) {
        if (!is_name_char(c)) {
            c = '_';
        }
    }
    return out;
}

EnhancedNames::EnhancedNames(const std::vector<ToolKey>& keys) : keys_(keys), names_(keys.size()) {
    std::vector<std::string> plain(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        plain[i] = sanitize_name_part(keys[i].server) + "_" + sanitize_name_part(keys[i].tool);
    }
    // Claim plain names in a fixed order (longest server first, then by key) so the winner of a
    // collision does not depend on insertion order and agrees with longest-prefix resolution.
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
        if (plain[i].size() <= kMaxEnhancedName && !plain[i].empty() &&
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

std::optional<std::size_t> EnhancedNames::resolve(std::string_view name) const {
    if (auto it = by_name_.find(std::string(name)); it != by_name_.end()) {
        return it->second;
    }
    // Longest server prefix first: "{server}_{tool}" where the server itself may contain '_'.
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

std::size_t EnhancedNames::memory_bytes() const noexcept {
    constexpr std::size_t kNode = 48;  // hash-map node and bucket overhead, roughly
    std::size_t bytes =
        keys_.capacity() * sizeof(ToolKey) + names_.capacity() * sizeof(std::string);
    for (const ToolKey& k : keys_) {
        bytes += k.server.capacity() + k.tool.capacity();
    }
    for (const std::string& n : names_) {
        bytes += n.capacity() + sizeof(std::string) + kNode;  // the by_name_ entry holds a copy
    }
    for (const auto& [server, tools] : by_server_) {
        bytes += server.capacity() + sizeof(std::string) + kNode;
        for (const auto& [tool, index] : tools) {
            bytes += tool.capacity() + sizeof(std::string) + sizeof(index) + kNode;
        }
    }
    return bytes;
}

}  // namespace scout::detail
