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

#include <cerrno>
#include <cmath>
#include <cstdlib>
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

// Number checks for options (CLI11's PositiveNumber and Range let nan and inf through,
// and print a 309-digit range for 0): the value must parse whole as a finite number.
// Messages quote the value in at most ~60 bytes.
inline std::string parse_finite(const std::string& s, double* out) {
  const std::string shown = s.size() > 60 ? s.substr(0, 57) + "..." : s;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
    return "expected a finite number, got '" + shown + "'";
  *out = v;
  return "";
}
inline const CLI::Validator kFinite(
    [](std::string& s) {
      double v = 0;
      return parse_finite(s, &v);
    },
    "FINITE");
inline const CLI::Validator kPositiveFinite(
    [](std::string& s) {
      double v = 0;
      std::string e = parse_finite(s, &v);
      if (e.empty() && !(v > 0)) e = "expected a number > 0, got '" + s + "'";
      return e;
    },
    "NUMBER > 0");
inline const CLI::Validator kNonNegativeFinite(
    [](std::string& s) {
      double v = 0;
      std::string e = parse_finite(s, &v);
      if (e.empty() && !(v >= 0)) e = "expected a number >= 0, got '" + s + "'";
      return e;
    },
    "NUMBER >= 0");
// A count: a whole number from 1 to `max`.
inline CLI::Validator positive_count(long long max) {
  return CLI::Validator(
      [max](std::string& s) {
        double v = 0;
        std::string e = parse_finite(s, &v);
        if (e.empty() && (v < 1 || v > static_cast<double>(max) || v != std::floor(v)))
          e = "expected a whole number from 1 to " + std::to_string(max) + ", got '" + s + "'";
        return e;
      },
      "INTEGER in [1, " + std::to_string(max) + "]");
}

}  // namespace gcu::cli
