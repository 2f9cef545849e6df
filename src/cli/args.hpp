// args.hpp: a small command-line parser: --flag, --key VALUE, --key=VALUE, repeated keys, and
// positional words. Unknown options are errors, so typos never pass silently.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace scout::cli {

class Args {
public:
    /// Parses argv[first..]. `flags` take no value; `options` take one (and may repeat).
    static std::optional<Args> parse(int argc, char** argv, int first, const std::set<std::string>& flags,
                                     const std::set<std::string>& options, std::string& error);

    [[nodiscard]] bool has(const std::string& key) const { return values_.count(key) != 0; }
    [[nodiscard]] std::optional<std::string> get(const std::string& key) const;
    [[nodiscard]] std::vector<std::string> all(const std::string& key) const;
    [[nodiscard]] const std::vector<std::string>& positional() const { return positional_; }

private:
    std::multimap<std::string, std::string> values_;
    std::vector<std::string> positional_;
};

}  // namespace scout::cli
