// Front end only: lists the LibTorch subcommands in `gcu --help` and hands them to
// `gcu-torch` (cli/forward.h).
#include "forward.h"

#include "command.h"
#include "descriptions.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

namespace gcu::cli {
namespace {

constexpr std::array<std::pair<const char*, const char*>, 5> kTorchCommands{{
    {"train", describe::kTrain},
    {"launch", describe::kLaunch},
    {"calibrate", describe::kCalibrate},
    {"validate", describe::kValidate},
    {"pilot", describe::kPilot},
}};

// The same order as gcu-torch's own registrations (cli/<name>.cpp), so both --help pages
// list the subcommands alike.
constexpr std::array<int, 5> kOrder{{60, 70, 30, 40, 50}};

// A placeholder in the front's --help: never parsed, since main() forwards first.
void add_placeholder(CLI::App& app, const char* name, const char* description) {
  auto* sub = app.add_subcommand(name, description);
  sub->allow_extras();
  sub->prefix_command();
}

struct Placeholders {
  Placeholders() {
    for (std::size_t i = 0; i < kTorchCommands.size(); ++i) {
      const auto [name, description] = kTorchCommands[i];
      commands().push_back({name, kOrder[i], [name, description](CLI::App& app) {
                              add_placeholder(app, name, description);
                            }});
    }
  }
};
const Placeholders placeholders;

}  // namespace

bool is_torch_subcommand(std::string_view name) {
  for (const auto& [n, d] : kTorchCommands)
    if (name == n) return true;
  return false;
}

std::string torch_binary_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  auto p = self.parent_path() / "gcu-torch";
  if (!std::filesystem::is_regular_file(p, ec) || ::access(p.c_str(), X_OK) != 0) return "";
  return p.string();
}

int forward_to_torch(int argc, char** argv) {
  if (argc < 2 || !is_torch_subcommand(argv[1])) return -1;
  const std::string path = torch_binary_path();
  if (path.empty()) {
    std::fprintf(stderr,
                 "gcu: error: '%s' trains or measures with LibTorch, and this build has no gcu-torch beside "
                 "gcu: install libtorch-dev (bash scripts/install-deps.sh) and rebuild (bash scripts/build.sh). "
                 "gcu simulate and gcu schemes work without it.\n",
                 argv[1]);
    return 2;
  }
  ::execv(path.c_str(), argv);  // argv[0] stays "gcu": messages and --help read the same
  std::fprintf(stderr, "gcu: error: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace gcu::cli
