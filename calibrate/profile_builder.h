// From calibration results to a profile (torch-free). Every calibration step stores its
// results as one JSON object in a state document (also the --resume file, see
// docs/calibrate.md); build_profile turns that document into a model::Profile in
// "gcu.profile/1" form, fitting the collective sweeps on the way, and the report text
// (nccl-tests tables and fit errors).
//
// State document: {"meta": {...}, "skipped": ["step: reason", ...],
//   "compute": {...}, "gamma": {...}, "collectives": {...}, "codecs": {...},
//   "errors": {...}, "contention": {...}, "convergence": {...}}
// each step's key present once it has completed.
#pragma once

#include "calibrate/collective_fit.h"
#include "model/profile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gcu::calibrate {

using Json = nlohmann::ordered_json;

struct BuildInfo {
  std::string device;       // e.g. "CPU: AMD EPYC (2 cores), 2 ranks (gloo)"
  std::string date;         // ISO 8601
  std::string command;      // the full command line
  std::map<std::string, std::string> libraries;
};

// Collective sweeps stored in a state document's "collectives" entry, fitted.
std::vector<CollectiveSweep> sweeps_from_json(const Json& collectives, const std::string& statistic = "median");
Json sweeps_to_json(const std::vector<CollectiveSweep>& sweeps, int world);

struct BuiltProfile {
  model::Profile profile;
  std::string report;  // tables and fit errors, for the terminal and docs
};

// Throws FitError when the state lacks the compute step (a profile needs a model).
BuiltProfile build_profile(const Json& state, const BuildInfo& info);

}  // namespace gcu::calibrate
