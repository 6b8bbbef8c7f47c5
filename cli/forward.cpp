// Front end only: lists the LibTorch subcommands in `gcu --help` and hands them to
// `gcu-torch` (cli/forward.h).
#include "forward.h"

#include "command.h"
#include "descriptions.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace gcu::cli {
namespace {

// A placeholder in the front's --help: never parsed, since main() forwards first.
void add_placeholder(CLI::App& app, const char* name, const char* description) {
  auto* sub = app.add_subcommand(name, description);
  sub->allow_extras();
  sub->prefix_command();
}

struct Placeholders {
  Placeholders() {
    for (const TorchCommand& c : kTorchCommands)
      commands().push_back({c.name, c.order, [c](CLI::App& app) { add_placeholder(app, c.name, c.description); }});
  }
};
const Placeholders placeholders;

}  // namespace

bool is_torch_subcommand(std::string_view name) {
  for (const TorchCommand& c : kTorchCommands)
    if (name == c.name) return true;
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

bool needs_torch(int argc, char** argv) {
  if (argc < 2) return false;
  if (is_torch_subcommand(argv[1])) return true;
  // `gcu profile from-trace --network torchscript:FILE.pt` reads the file with LibTorch.
  if (std::string_view(argv[1]) != "profile") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a.rfind("torchscript:", 0) == 0 || a.rfind("--network=torchscript:", 0) == 0) return true;
  }
  return false;
}

int forward_to_torch(int argc, char** argv) {
  if (!needs_torch(argc, argv)) return -1;
  const std::string path = torch_binary_path();
  if (path.empty()) {
    std::fprintf(stderr,
                 "gcu: error: '%s' trains, measures or reads a TorchScript file with LibTorch, and this build has no gcu-torch beside "
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
