// args.cpp: see args.hpp.
#include "cli/args.hpp"

namespace scout::cli {

std::optional<Args> Args::parse(int argc, char** argv, int first, const std::set<std::string>& flags,
                                const std::set<std::string>& options, std::string& error) {
    Args args;
    bool only_positional = false;
    for (int i = first; i < argc; ++i) {
        std::string word = argv[i];
        if (only_positional || word.size() < 3 || word.rfind("--", 0) != 0) {
            if (word == "--") {
                only_positional = true;
                continue;
            }
            args.positional_.push_back(word);
            continue;
        }
        std::string key = word.substr(2);
        std::optional<std::string> value;
        if (auto eq = key.find('='); eq != std::string::npos) {
            value = key.substr(eq + 1);
            key.resize(eq);
        }
        if (flags.count(key) != 0) {
            if (value) {
                error = "--" + key + " takes no value";
                return std::nullopt;
            }
            args.values_.emplace(key, "");
        } else if (options.count(key) != 0) {
            if (!value) {
                if (i + 1 >= argc) {
                    error = "--" + key + " needs a value";
                    return std::nullopt;
                }
                value = argv[++i];
            }
            args.values_.emplace(key, *value);
        } else {
            error = "unknown option --" + key;
            return std::nullopt;
        }
    }
    return args;
}

std::optional<std::string> Args::get(const std::string& key) const {
    auto range = values_.equal_range(key);
    if (range.first == range.second) {
        return std::nullopt;
    }
    return std::prev(range.second)->second;  // the last one wins
}

std::vector<std::string> Args::all(const std::string& key) const {
    std::vector<std::string> out;
    auto range = values_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
        out.push_back(it->second);
    }
    return out;
}

}  // namespace scout::cli
