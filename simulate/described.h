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
  bool precision_given = false; // --precision on the command line (a moved profile keeps its own otherwise)
  double mfu = 0.4;
  std::optional<double> step_time_s;
  std::string optimizer = "adamw";
  std::string catalog_dir;      // empty: model::hw::default_catalog_dir()
  // Moving a measured profile (-p with --gpu): the GPU it was measured on (empty: the one its
  // provenance.device names) and the precision it computed in.
  std::string from_gpu;
  std::string from_precision = "fp32";
};

struct DescribedProfile {
  LoadedProfile loaded;                 // profile + label ("described: gpt2 on 8 x 8 h100-sxm")
  std::vector<std::string> assumptions; // for the output's assumption lines
  std::vector<std::string> notes;       // warnings and the ranking basis
};

// Throws model::ModelError (NetworkError, HardwareError, ProfileError) naming the flag or field.
DescribedProfile describe_from_flags(const DescribeFlags& f);

// `gcu simulate -p PROFILE --gpu NAME ...`: the measured profile moved to the described
// system (model/network/describe.h move_profile): its network is f.model, else its model's
// name as a spec or preset, and must have its tensors.
DescribedProfile move_from_flags(const LoadedProfile& measured, const DescribeFlags& f);

// `gcu simulate -p MODEL --system SYSTEM`: a model part (or profile) combined with a system
// part (or profile), load_combined. When the parts' devices name two different catalog GPUs,
// the model's compute is moved to the system's (model/network/move.h; the network is
// f.model or the model's name); when they differ but are not both in the catalog, a note
// says the compute was not moved.
DescribedProfile combine_from_flags(const std::string& model_path, const std::string& system_path,
                                    const std::vector<std::string>& overrides, const DescribeFlags& f);

}  // namespace gcu::simulate
