// From calibration results to a profile (torch-free). build_profile turns the typed
// calibration state (state.h: one struct per step, also the --resume file) into a
// model::Profile in "gcu.profile/2" form, fitting the collective sweeps on the way, and
// the report text (nccl-tests tables and fit errors).
#pragma once

#include "calibrate/collective_fit.h"
#include "calibrate/state.h"
#include "model/interference.h"
#include "model/profile.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct BuildInfo {
  std::string device;       // e.g. "CPU: AMD EPYC (2 cores), 2 ranks (gloo)"
  std::string date;         // ISO 8601
  std::string command;      // the full command line
  std::map<std::string, std::string> libraries;
  // The compute step's measured gradient-ready times (ready_s) into the profile; false:
  // left out, so that the model spreads backward by parameter count (`gcu calibrate
  // --ready-times`; on the recorded grids the measured ones predicted no better: docs/model.md).
  bool measured_ready_times = false;
};

// The state's collective sweeps, fitted on `statistic` ("median", "p10" or "min").
std::vector<CollectiveSweep> fitted_sweeps(const CollectivesState& c, const std::string& statistic = "median");

struct BuiltProfile {
  model::Profile profile;
  std::string report;  // tables and fit errors, for the terminal and docs
};

// The gamma step as the interference fit's step (model/interference.h): the backward alone
// and beside the all-reduces, when those ended, and each one's bytes (the profile's buckets
// planned again when the state did not keep them). nullopt when the state does not give
// how long the all-reduces ran (comm_s = 0, older states) or a time is not finite and > 0.
std::optional<model::BesideStep> beside_step(const GammaState& gamma, const model::Profile& profile);

// The interference fit of the gamma step on `profile`'s own links, its ranks one per node
// (model::fit_interference): what calibrate stores and the calibration-noise draws
// solve again. nullopt as beside_step, or with fewer than 2 ranks.
std::optional<model::InterferenceFitResult> gamma_step_fit(const GammaState& gamma, const model::Profile& profile);

// Throws FitError when the state lacks the compute step (a profile needs a model).
BuiltProfile build_profile(const CalibrationState& state, const BuildInfo& info);

}  // namespace gcu::calibrate
