// What `gcu simulate` simulates, from its flags: a profile file (-p), a profile moved to a
// described system (-p with --gpu), a model part on a system part (-p with --system), or a
// described model on a described system (--model with --gpu). Checks the flags' combinations
// (SimulateError naming the flags) and returns the profile with the lines every output of
// a described, moved or combined one carries (simulate/described.h).
#pragma once

#include "simulate/described.h"
#include "simulate/profile_file.h"

#include <string>
#include <vector>

namespace gcu::simulate {

struct SubjectRequest {
  std::string profile;                  // -p
  std::string system;                   // --system
  std::vector<std::string> overrides;   // --set (profile files only)
  DescribeFlags describe;               // --model, --gpu, --nic, ... (rates parsed)
  bool write_profile = false;           // --write-profile given (checked here, written by the caller)
};

struct Subject {
  LoadedProfile lp;
  bool described = false;  // the system (and for --model the compute) comes from the flags
  bool moved = false;      // a measured profile moved to the described system (-p with --gpu)
  std::vector<std::string> assumptions, notes;
};

Subject load_subject(const SubjectRequest& r);

}  // namespace gcu::simulate
