// One-line descriptions of the subcommands that run in `gcu-torch` (they need LibTorch).
// The torch-free front end `gcu` lists them in its --help and forwards them
// (cli/forward.cpp); `gcu-torch` declares them with the same words.
#pragma once

namespace gcu::cli::describe {
inline constexpr const char* kTrain = "Run real compressed data-parallel training (one rank)";
inline constexpr const char* kLaunch = "Start N ranks of a command on this machine (like torchrun)";
inline constexpr const char* kCalibrate =
    "Measure compute, collectives, compressors and convergence on the launched ranks; write a profile for "
    "`gcu simulate`";
inline constexpr const char* kValidate =
    "Run the trainer over a grid on a shaped network and check the model's predictions, per component";
inline constexpr const char* kPilot =
    "Paired pilot runs of the baselines and candidate schemes, and the time-to-accuracy predictions "
    "(reaches/never/uncertain) made from them";
}  // namespace gcu::cli::describe
