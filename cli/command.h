// The `gcu` binary's subcommand registry. One subcommand per file (cli/<name>.cpp):
// an options struct, a setup function that declares the CLI11 subcommand and a callback
// that calls a library. No logic lives here. Each file registers itself with
//
//   static const gcu::cli::Registrar reg{"simulate", 10, &setup_simulate};
//
// and is compiled directly into the executable (never a static library, which would
// drop the registrar), one line in cli/CMakeLists.txt.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace gcu::cli {

struct Command {
  std::string name;
  int order = 0;                       // position in `gcu --help`
  std::function<void(CLI::App&)> setup;  // adds the subcommand to the root app
};

std::vector<Command>& commands();

struct Registrar {
  Registrar(std::string name, int order, std::function<void(CLI::App&)> setup) {
    commands().push_back({std::move(name), order, std::move(setup)});
  }
};

// Thrown by a subcommand's callback for a user error: printed as "gcu: error: <what>",
// exit code 2 (1 is left for internal failures).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gcu::cli
