// commands.hpp: one entry point per `scout` subcommand; each returns the process exit code.
#pragma once

namespace scout::cli {

int run_search(int argc, char** argv);
int run_eval(int argc, char** argv);
int run_index(int argc, char** argv);
int run_calibrate(int argc, char** argv);
int run_tokens(int argc, char** argv);
int run_options(int argc, char** argv);
int run_synth(int argc, char** argv);
int run_doctor(int argc, char** argv);
/// `scout registry`: registry_command.cpp, or registry_unavailable.cpp without libpq.
int run_registry(int argc, char** argv);

}  // namespace scout::cli
