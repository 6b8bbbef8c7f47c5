// The subcommands that run in `gcu-torch` (they need LibTorch): name, place in --help and
// one-line description. The torch-free front end `gcu` lists them in its --help and
// forwards them (cli/forward.cpp); `gcu-torch` declares them from the same entries.
#pragma once

#include <array>

namespace gcu::cli {

struct TorchCommand {
  const char* name;
  int order;  // position in `gcu --help` (Command::order)
  const char* description;
};

namespace describe {
inline constexpr TorchCommand kCalibrate{
    "calibrate", 30,
    "Measure compute, collectives, compressors and convergence on the launched ranks; write a profile for "
    "`gcu simulate`"};
inline constexpr TorchCommand kValidate{
    "validate", 40, "Run the trainer over a grid on a shaped network and check the model's predictions, per component"};
inline constexpr TorchCommand kPilot{
    "pilot", 50,
    "Paired pilot runs of the baselines and candidate schemes, and the time-to-accuracy predictions "
    "(reaches/never/uncertain) made from them"};
inline constexpr TorchCommand kTrain{"train", 60, "Run real compressed data-parallel training (one rank)"};
inline constexpr TorchCommand kLaunch{"launch", 70, "Start N ranks of a command on this machine (like torchrun)"};
}  // namespace describe

inline constexpr std::array<TorchCommand, 5> kTorchCommands{
    {describe::kCalibrate, describe::kValidate, describe::kPilot, describe::kTrain, describe::kLaunch}};

}  // namespace gcu::cli
