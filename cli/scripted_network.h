// cli/scripted_network.h: `--network torchscript:FILE.pt` of `gcu profile from-trace`, the
// user's own TorchScript model as a described network (gcu-torch only: the torch-free front
// hands such a command to gcu-torch, cli/forward.h).
#pragma once

#include "model/network/network.h"

#include <string>

namespace gcu::cli {

// The parameters of the module in the file (not run) as a tensor-list network: backward
// order, one layer per submodule ("features.0" holds features.0.weight and .bias), no
// FLOPs (a trace measures the compute). Throws model::net::NetworkError naming the problem.
model::net::Network scripted_network(const std::string& spec);

}  // namespace gcu::cli
