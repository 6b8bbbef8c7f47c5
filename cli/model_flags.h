// cli/model_flags.h: the flags that describe a TorchScript model's input, shared by
// `gcu train`, `gcu calibrate` and `gcu validate` (trainer/models/scripted_spec.h):
//   --model torchscript:net.pt --input-shape 3x224x224 [--dtype] [--classes] [--loss] [--vocab]
#pragma once

#include "trainer/models/scripted_spec.h"

#include <CLI/CLI.hpp>

#include <string>

namespace gcu::cli {

// Adds the five flags to `sub`; they fill `flags`.
void add_scripted_model_flags(CLI::App* sub, trainer::ScriptedFlags* flags);

// `model` with the flags folded in (a TorchScript spec becomes its canonical form). A
// TorchScript model is loaded once here, on the CPU, so that a file that does not load or
// an input the model rejects stops the command before it starts ranks or writes anything.
// Throws UsageError naming the problem.
std::string model_spec_with_flags(const std::string& model, const trainer::ScriptedFlags& flags);

}  // namespace gcu::cli
