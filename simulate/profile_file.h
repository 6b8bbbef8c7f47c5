// Profile files: read + apply command-line overrides + validate, and write (atomically).
// The JSON logic is model/profile_json.h; this adds the file and its name to errors:
//   "data/profiles/v100-resnet50.json: /cluster/gamma: expected a number >= 1 ..., got 0.9"
//   "data/profiles/v100-resnet50.json (with --set cluster.gamma=0.9): ..." when an
//   override introduced the problem.
#pragma once

#include "model/profile.h"
#include "model/profile_json.h"

#include <string>
#include <vector>

namespace gcu::simulate {

struct LoadedProfile {
  model::Profile profile;
  model::Json json;   // after overrides
  std::string path;
};

// Throws model::ProfileError (with file()) for unreadable, malformed or inconsistent
// files and bad overrides.
LoadedProfile load_profile_file(const std::string& path, const std::vector<std::string>& overrides = {});

// A model part (or a profile, its system ignored) combined with a system part (or a
// profile, its model ignored): model/parts.h. `overrides` apply to the combined profile.
// Its path reads "MODEL + SYSTEM". Errors name the file they are in.
struct CombinedProfile {
  LoadedProfile loaded;
  std::string model_device, system_device;  // the parts' provenance.device ("" = not given)
};
CombinedProfile load_combined(const std::string& model_path, const std::string& system_path,
                              const std::vector<std::string>& overrides = {});

// A profile, or a model part, read to be put on a described system (`-p FILE --gpu NAME`):
// a model part gets a placeholder cluster (one GPU, 1 Gbit/s links, no codec costs) that the
// described system replaces.
LoadedProfile load_for_described_system(const std::string& path, const std::vector<std::string>& overrides = {});

// to_json + atomic write, 1-space indentation (tensor lists stay readable).
void save_profile_file(const model::Profile& p, const std::string& path);

}  // namespace gcu::simulate
