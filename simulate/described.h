// `gcu simulate --model SPEC --gpu NAME ...`: the profile of a described model on a
// described system, from the flags (model/network/describe.h does the work). Returns it
// as a LoadedProfile with a label for the report's header and the lines every output must
// carry: how the compute was obtained, what the catalog and the codec table assume, and
// the warnings (model states that do not fit in the GPU's memory).
#pragma once

#include "simulate/profile_file.h"

#include <optional>
#include <string>
#include <vector>

namespace gcu::simulate {

struct DescribeFlags {
  std::string model;            // network spec (model/network/network.h)
  std::string gpu;              // catalog name
  int nodes = 0;                // 0: from gpus / gpus_per_node, else 1
  int gpus_per_node = 0;        // 0: 8, or gpus when gpus < 8
  int gpus = 0;                 // total, 0: nodes x gpus_per_node
  std::string nic;              // catalog name; empty: --bandwidth alone (latency assumed)
  int nics_per_node = 1;
  std::string intra_link;       // catalog name; empty: the GPU's own (catalog "intra_link")
  std::optional<double> bandwidth_gbps, intra_bandwidth_gbps;  // replace the NIC's / link's rate
  int batch = 0;                // per GPU; 0: the network's usual
  std::string precision = "bf16";
  double mfu = 0.4;
  std::optional<double> step_time_s;
  std::string optimizer = "adamw";
  std::string catalog_dir;      // empty: model::hw::default_catalog_dir()
};

struct DescribedProfile {
  LoadedProfile loaded;                 // profile + label ("described: gpt2 on 8 x 8 h100-sxm")
  std::vector<std::string> assumptions; // for the output's assumption lines
  std::vector<std::string> notes;       // warnings and the ranking basis
};

// Throws model::ModelError (NetworkError, HardwareError, ProfileError) naming the flag or field.
DescribedProfile describe_from_flags(const DescribeFlags& f);

}  // namespace gcu::simulate
