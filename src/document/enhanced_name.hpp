// enhanced_name.hpp: server-qualified tool names that LLM tool APIs accept, and their reverse map.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scout/types.hpp"

namespace scout::detail {

/// Longest enhanced name: the limit of LLM tool-name fields (^[A-Za-z0-9_-]{1,64}$).
inline constexpr std::size_t kMaxEnhancedName = 64;

/// Replaces every character outside [A-Za-z0-9_-] by '_' ("my server.v2" -> "my_server_v2").
[[nodiscard]] std::string sanitize_name_part(std::string_view part);

/// Enhanced names for a set of tools: "{sanitized_server}_{tool}". A name that would be too long,
/// or that two tools would share, gets a hash suffix instead; when several tools compete for one
/// plain name, the one with the longest server name keeps it (so longest-prefix parsing agrees).
/// Deterministic: the same set of keys always gives the same names, whatever their order.
class EnhancedNames {
public:
    EnhancedNames() = default;
    explicit EnhancedNames(const std::vector<ToolKey>& keys);

    /// The name of keys[i].
    [[nodiscard]] const std::string& name(std::size_t i) const { return names_[i]; }
    [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }
    /// Approximate bytes held (strings, arrays, hash-map nodes).
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

    /// Index of the tool an enhanced name denotes: an exact name first, else the longest server
    /// prefix "{sanitized_server}_" whose remainder names one of that server's tools.
    [[nodiscard]] std::optional<std::size_t> resolve(std::string_view name) const;

private:
    std::vector<ToolKey> keys_;
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::size_t> by_name_;
    /// sanitized server -> (sanitized tool -> index), for prefix resolution
    std::unordered_map<std::string, std::unordered_map<std::string, std::size_t>> by_server_;
    std::size_t longest_server_ = 0;
};

}  // namespace scout::detail
