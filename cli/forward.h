// The torch-free front end `gcu` and the LibTorch part `gcu-torch` beside it.
//
// `gcu simulate`, `gcu schemes` and `--help` need only the pure libraries, so `gcu` is
// built without LibTorch, CUDA or NCCL and starts in milliseconds. The subcommands that
// train or measure (train, launch, calibrate, validate, pilot) live in `gcu-torch`; `gcu`
// replaces itself with it (execv, the way git runs its subcommands), so the CLI, the
// output and the exit codes are the same whichever binary the user typed.
#pragma once

#include <string>
#include <string_view>

namespace gcu::cli {

// The subcommands that `gcu-torch` runs.
bool is_torch_subcommand(std::string_view name);

// Whether argv is for gcu-torch: a torch subcommand, or `gcu profile` with a TorchScript
// file (an argument starting "torchscript:").
bool needs_torch(int argc, char** argv);

// `gcu-torch` in the directory of the running executable, or "" when it is not there
// (a build without LibTorch).
std::string torch_binary_path();

// When argv names a torch subcommand: replaces this process with gcu-torch (does not
// return on success), or prints why it cannot and returns 2 (no gcu-torch in this build)
// or 1 (exec failed). Returns -1 when argv is not for gcu-torch.
int forward_to_torch(int argc, char** argv);

}  // namespace gcu::cli
