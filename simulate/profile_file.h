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

// to_json + atomic write, 1-space indentation (tensor lists stay readable).
void save_profile_file(const model::Profile& p, const std::string& path);

}  // namespace gcu::simulate
