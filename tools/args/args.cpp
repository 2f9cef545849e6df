// args.cpp: see args.hpp.
#include "args/args.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "args/nearest.hpp"

namespace scout::args {
namespace {

struct Registry {
    std::mutex mu;
    std::vector<const CommandSpec*> commands;
};

Registry& registry() {
    static Registry r;
    return r;
}

bool declared_anywhere(std::string_view key) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    return std::any_of(r.commands.begin(), r.commands.end(), [&](const CommandSpec* spec) {
        return spec->find(key) != nullptr;
    });
}

constexpr std::size_t kHelpColumn = 30;

/// " (did you mean --top-k?)" when a declared option is near `key`, else "".
std::string suggestion(const CommandSpec& spec, std::string_view key) {
    std::vector<std::string> names{"help"};
    for (const OptionGroup& group : spec.groups) {
        for (const OptionSpec& option : group.options) {
            names.push_back(option.name);
        }
    }
    const auto near = nearest(key, names);
    return near ? " (did you mean --" + *near + "?)" : "";
}

}  // namespace

void register_command(const CommandSpec& spec) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    r.commands.push_back(&spec);
}

const OptionSpec* CommandSpec::find(std::string_view option) const {
    for (const OptionGroup& group : groups) {
        for (const OptionSpec& spec : group.options) {
            if (spec.name == option) {
                return &spec;
            }
        }
    }
    return nullptr;
}

void CommandSpec::print_help(std::ostream& out) const {
    out << "usage: " << name << " [options]" << (positional.empty() ? "" : " ") << positional
        << "\n\n"
        << summary << "\n";
    for (const OptionGroup& group : groups) {
        out << "\n" << group.title << ":\n";
        for (const OptionSpec& option : group.options) {
            std::string left = "  --" + option.name;
            if (!option.value.empty()) {
                left += " " + option.value;
            }
            std::string help = option.help;
            if (!option.fallback.empty()) {
                help += " (default: " + option.fallback + ")";
            }
            if (option.repeatable) {
                help += "; repeatable";
            }
            out << left;
            if (left.size() + 2 > kHelpColumn) {
                out << "\n" << std::string(kHelpColumn, ' ');
            } else {
                out << std::string(kHelpColumn - left.size(), ' ');
            }
            // Wrap the help at about 100 columns, continuing under the help column.
            std::size_t column = kHelpColumn;
            std::size_t start = 0;
            while (start < help.size()) {
                std::size_t end = help.find(' ', start);
                if (end == std::string::npos) {
                    end = help.size();
                }
                const std::size_t word = end - start;
                if (column > kHelpColumn && column + 1 + word > 100) {
                    out << "\n" << std::string(kHelpColumn, ' ');
                    column = kHelpColumn;
                } else if (column > kHelpColumn) {
                    out << ' ';
                    ++column;
                }
                out << help.substr(start, word);
                column += word;
                start = end + 1;
            }
            out << "\n";
        }
    }
    out << "\n  -h, --help                  this help\n";
    if (!notes.empty()) {
        out << "\n" << notes;
    }
}

std::optional<Args> Args::parse(
    int argc, const char* const* argv, int first, const CommandSpec& spec, std::string& error) {
    Args args;
    args.spec_ = &spec;
    bool only_positional = false;
    for (int i = first; i < argc; ++i) {
        std::string word = argv[i];
        if (!only_positional && (word == "--help" || word == "-h")) {
            args.help_ = true;
            continue;
        }
        if (only_positional || word.size() < 3 || word.rfind("--", 0) != 0) {
            if (word == "--" && !only_positional) {
                only_positional = true;
                continue;
            }
            // "-k 3" is an option the program does not have, not two positional words.
            if (!only_positional && word.size() > 1 && word.front() == '-') {
                error = "unknown option " + word + suggestion(spec, word.substr(1)) +
                        " (put -- before words that start with a dash)";
                return std::nullopt;
            }
            if (spec.positional.empty()) {
                error = "unexpected argument '" + word + "' (" + spec.name + " takes options only)";
                return std::nullopt;
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
        const OptionSpec* option = spec.find(key);
        if (option == nullptr) {
            error = "unknown option --" + key + suggestion(spec, key);
            return std::nullopt;
        }
        if (option->value.empty()) {
            if (value) {
                error = "--" + key + " takes no value";
                return std::nullopt;
            }
            value = "";
        } else if (!value) {
            if (i + 1 >= argc) {
                error = "--" + key + " needs a value (" + option->value + ")";
                return std::nullopt;
            }
            value = argv[++i];
        }
        if (option->apply) {
            if (std::string refused = option->apply(*value); !refused.empty()) {
                error = std::string("--").append(key).append(" ").append(refused);
                return std::nullopt;
            }
        }
        args.values_.emplace_back(key, *value);
    }
    return args;
}

void Args::check_declared(std::string_view key) const {
    if (spec_->find(key) == nullptr && !declared_anywhere(key)) {
        throw std::logic_error("option --" + std::string(key) +
                               " is read but no command declares it");
    }
}

bool Args::has(std::string_view key) const {
    check_declared(key);
    return std::any_of(
        values_.begin(), values_.end(), [&](const auto& kv) { return kv.first == key; });
}

std::optional<std::string> Args::get(std::string_view key) const {
    check_declared(key);
    for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
        if (it->first == key) {
            return it->second;  // the last one wins
        }
    }
    return std::nullopt;
}

std::vector<std::string> Args::all(std::string_view key) const {
    check_declared(key);
    std::vector<std::string> out;
    for (const auto& [k, v] : values_) {
        if (k == key) {
            out.push_back(v);
        }
    }
    return out;
}

}  // namespace scout::args
