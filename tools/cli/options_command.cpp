// options_command.cpp: `scout options` prints the table of index settings (options.hpp's
// option_fields()): key, type, bounds, default, what an older index file without the key reads
// as, and what it does. `--markdown` prints the table docs/FORMAT.md holds (a test compares them).
#include <iostream>
#include <string>

#include "scout/options.hpp"

#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace scout::cli {
namespace {

std::string type_text(const OptionField& f) {
    switch (f.type) {
        case OptionType::flag:
            return "true|false";
        case OptionType::choice:
            return std::string(f.choices());
        case OptionType::whole:
        case OptionType::real: {
            const auto bound = [&](double v) {
                if (f.type == OptionType::whole) {
                    return v >= 1.8e19 ? std::string("max")
                                       : std::to_string(static_cast<unsigned long long>(v));
                }
                std::string text = std::to_string(v);
                text.erase(text.find_last_not_of('0') + 1);
                if (text.back() == '.') {
                    text.pop_back();
                }
                return text;
            };
            return std::string(f.type == OptionType::whole ? "whole " : "real ") + bound(f.min) +
                   ".." + bound(f.max);
        }
    }
    return "";
}

std::string absent_text(const OptionField& f) {
    if (!f.stored) {
        return "not stored";
    }
    switch (f.when_absent) {
        case WhenAbsent::required:
            return "required";
        case WhenAbsent::off:
            return f.type == OptionType::flag ? "false" : "0";
        case WhenAbsent::as_default:
            return "the default";
        case WhenAbsent::largest:
            return "max";
    }
    return "";
}

}  // namespace

int run_options(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, options_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    if (!parsed.args->positional().empty()) {
        return fail("options takes no positional arguments");
    }
    const CatalogOptions defaults;
    if (parsed.args->has("markdown")) {
        std::cout << "| key | values | default | absent from an older file | meaning |\n"
                     "|---|---|---|---|---|\n";
        for (const OptionField& f : option_fields()) {
            std::string values;
            for (const char c : type_text(f)) {
                values += c == '|' ? std::string("\\|") : std::string(1, c);  // | ends a cell
            }
            std::cout << "| `" << f.key << "` | " << values << " | " << option_text(defaults, f)
                      << " | " << absent_text(f) << " | " << f.help << " |\n";
        }
        return kExitOk;
    }
    for (const OptionField& f : option_fields()) {
        std::cout << f.key << "  " << type_text(f) << "  default " << option_text(defaults, f)
                  << "\n    " << f.help << (f.stored ? "" : " (not stored in index files)") << "\n";
    }
    return kExitOk;
}

}  // namespace scout::cli
