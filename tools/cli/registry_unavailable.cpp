// registry_unavailable.cpp: `scout registry` in a build without libpq: the help is there, the
// command says why it cannot run.
#include "cli/command_specs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace scout::cli {

int run_registry(int argc, char** argv) {
    ParsedCommand parsed = parse_command(argc, argv, registry_spec());
    if (!parsed.args) {
        return parsed.exit_code;
    }
    return fail(
        "this scout was built without libpq, so it has no registry (install libpq-dev "
        "and build again)");
}

}  // namespace scout::cli
