// args.hpp: the command-line parser of scout's programs (the `scout` command and scout-gateway),
// table-driven. A program declares each option once (name, value, default, help, and optionally
// what to do with its value) in a CommandSpec; the parser accepts exactly those options and the
// help text is printed from the same table, so `--help` cannot drift from what is accepted.
// Syntax: --flag, --key VALUE, --key=VALUE, repeated keys, positional words, and `--` to end
// options. Unknown options are errors naming the nearest known one, so typos never pass silently.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scout::args {

/// One option: `--name VALUE`, or a flag when `value` is empty.
struct OptionSpec {
    std::string name;      ///< without the leading dashes
    std::string value;     ///< placeholder of the value, e.g. "FILE"; empty for a flag
    std::string fallback;  ///< the default, as the help shows it; empty when there is none
    std::string help;
    bool repeatable = false;
    /// Called with each value as it is parsed (a flag's is empty): sets what the option
    /// controls and returns why the value is refused, or "" when it is taken. Unset: the value
    /// is only kept, for Args::get.
    std::function<std::string(const std::string& value)> apply = {};
};

/// Options shown together under a title in the help.
struct OptionGroup {
    std::string title;
    std::vector<OptionSpec> options;
};

/// A command: its name, its positional arguments, what it does, and its option groups.
struct CommandSpec {
    std::string name;        ///< "scout search"
    std::string positional;  ///< e.g. "QUERY..."; empty when it takes none
    std::string summary;
    std::vector<OptionGroup> groups;
    std::string notes = {};  ///< printed after the options (exit codes, environment); may be empty

    /// The option called `name`, or nullptr.
    [[nodiscard]] const OptionSpec* find(std::string_view name) const;
    /// The help text: usage, summary, then every option with its default, then the notes.
    void print_help(std::ostream& out) const;
};

class Args {
public:
    /// Parses argv[first..] against `spec`, calling each option's `apply` as it goes.
    /// `--help` / `-h` is always accepted (help()). On an error (an unknown option, with the
    /// nearest known one; a missing or refused value; a positional word where the command takes
    /// none) returns nullopt and sets `error` to one line that names the option.
    static std::optional<Args> parse(
        int argc, const char* const* argv, int first, const CommandSpec& spec, std::string& error);

    /// True when --help or -h was given.
    [[nodiscard]] bool help() const { return help_; }
    [[nodiscard]] bool has(std::string_view key) const;
    /// The last value given for `key`. Reading an option no table declares is a programming
    /// error (std::logic_error): the option would be missing from every help text.
    [[nodiscard]] std::optional<std::string> get(std::string_view key) const;
    /// Every value given for `key`, in order.
    [[nodiscard]] std::vector<std::string> all(std::string_view key) const;
    [[nodiscard]] const std::vector<std::string>& positional() const { return positional_; }
    [[nodiscard]] const CommandSpec& spec() const { return *spec_; }

private:
    void check_declared(std::string_view key) const;

    const CommandSpec* spec_ = nullptr;
    std::vector<std::pair<std::string, std::string>> values_;
    std::vector<std::string> positional_;
    bool help_ = false;
};

/// Registers a command's table, so Args::get can tell an option some command declares (absent
/// here) from one that no help shows (a bug). The tables register themselves when built.
void register_command(const CommandSpec& spec);

}  // namespace scout::args
