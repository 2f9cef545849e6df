// main.cpp: the `scout` command: search and evaluate MCP tool catalogs. Each command's options
// and help come from its table in command_specs.cpp.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "scout/catalog.hpp"

#include "args/nearest.hpp"
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace {

void print_usage(std::ostream& out) {
    out << "usage: scout <command> [options]\n\ncommands:\n";
    for (const scout::cli::CommandSpec* spec : scout::cli::all_specs()) {
        std::string name = spec->name.substr(spec->name.find(' ') + 1);
        out << "  " << name << std::string(name.size() < 8 ? 8 - name.size() : 1, ' ')
            << spec->summary << "\n";
    }
    out << "\n`scout <command> --help` lists a command's options with their defaults.\n"
           "  --version   print the version\n"
           "  -h, --help  this help\n";
}

/// A bad command: one line, the nearest command's name when there is one, and where the
/// usage is (the whole usage only on --help).
int command_error(const std::string& message, const std::string& command) {
    std::vector<std::string> names;
    for (const scout::cli::CommandSpec* spec : scout::cli::all_specs()) {
        names.push_back(spec->name.substr(spec->name.find(' ') + 1));
    }
    const auto near = scout::args::nearest(command, names);
    std::cerr << "scout: " << message << (near ? " (did you mean " + *near + "?)" : "")
              << " (see scout --help)\n";
    return scout::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        return command_error("a command is needed", "");
    }
    if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        print_usage(std::cout);
        return scout::cli::kExitOk;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::cout << "scout " << scout::version() << "\n";
        return scout::cli::kExitOk;
    }
    try {
        const std::string command = argv[1];
        if (command == "search") {
            return scout::cli::run_search(argc, argv);
        }
        if (command == "eval") {
            return scout::cli::run_eval(argc, argv);
        }
        if (command == "index") {
            return scout::cli::run_index(argc, argv);
        }
        if (command == "calibrate") {
            return scout::cli::run_calibrate(argc, argv);
        }
        if (command == "tokens") {
            return scout::cli::run_tokens(argc, argv);
        }
        if (command == "options") {
            return scout::cli::run_options(argc, argv);
        }
        if (command == "synth") {
            return scout::cli::run_synth(argc, argv);
        }
        if (command == "doctor") {
            return scout::cli::run_doctor(argc, argv);
        }
        if (command == "registry") {
            return scout::cli::run_registry(argc, argv);
        }
        return command_error("unknown command '" + command + "'", command);
    } catch (const std::exception& e) {
        std::cerr << "scout: internal error: " << e.what() << "\n";
        return scout::cli::kExitFailure;
    }
}
