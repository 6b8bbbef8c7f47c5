// From calibration results to a profile (torch-free). build_profile turns the typed
// calibration state (state.h: one struct per step, also the --resume file) into a
// model::Profile in "gcu.profile/1" form, fitting the collective sweeps on the way, and
// the report text (nccl-tests tables and fit errors).
#pragma once

#include "calibrate/collective_fit.h"
#include "calibrate/state.h"
#include "model/profile.h"

#include <map>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct BuildInfo {
  std::string device;       // e.g. "CPU: AMD EPYC (2 cores), 2 ranks (gloo)"
  std::string date;         // ISO 8601
  std::string command;      // the full command line
  std::map<std::string, std::string> libraries;
};

// The state's collective sweeps, fitted on `statistic` ("median", "p10" or "min").
std::vector<CollectiveSweep> fitted_sweeps(const CollectivesState& c, const std::string& statistic = "median");

struct BuiltProfile {
  model::Profile profile;
  std::string report;  // tables and fit errors, for the terminal and docs
};

// Throws FitError when the state lacks the compute step (a profile needs a model).
BuiltProfile build_profile(const CalibrationState& state, const BuildInfo& info);

}  // namespace gcu::calibrate
