// From calibration results to a profile (torch-free). build_profile turns the typed
// calibration state (state.h: one struct per step, also the --resume file) into a
// model::Profile in "gcu.profile/1" form, fitting the collective sweeps on the way, and
// the report text (nccl-tests tables and fit errors).
#pragma once

#include "calibrate/collective_fit.h"
#include "calibrate/state.h"
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
};

// The state's collective sweeps, fitted on `statistic` ("median", "p10" or "min").
std::vector<CollectiveSweep> fitted_sweeps(const CollectivesState& c, const std::string& statistic = "median");

struct BuiltProfile {
  model::Profile profile;
  std::string report;  // tables and fit errors, for the terminal and docs
};

// The model's gamma: backward advances at 1/gamma while a collective runs and at 1
// otherwise (docs/model.md §2.2), so a backward of W seconds alone that took B with
// collectives running for its first C seconds gives W = C / gamma + (B - C):
//   gamma = C / (C - (B - W))   when C < B, and B / W when C >= B or C is unknown (0).
// The profile once took B / W always, which reads a stretch spread over the whole backward
// as a slowdown during C. When the stretch B - W is at least C (more delay than the
// collectives' own time) the rate model cannot explain it; gamma is then kGammaRateMax.
// Never below 1.
inline constexpr double kGammaRateMax = 4;
double gamma_while_communicating(double alone_s, double overlapped_s, double comm_s);

// The cluster's comm_contention (model/profile.h) from the gamma step: all-reduces of
// `bucket_bytes` that took `comm_beside_s` from the start of a backward that then lasted
// `backward_beside_s`. The model costs each all-reduce r (the cluster's own fit) with a
// fixed part l (an empty message's cost) at l + f (r - l) beside backward and at r after
// it; f solves that for the measured time: all of it beside the backward when
// comm_beside_s <= backward_beside_s, else the backward's part at the rate that leaves the
// rest for after it. Clamped to [1, kCommContentionMax]; 1 when nothing was measured.
inline constexpr double kCommContentionMax = 4;
struct CommContentionFit {
  double factor = 1;
  double unclamped = 1;          // before the clamp to [1, kCommContentionMax]: reported, not hidden
  double predicted_alone_s = 0;  // the all-reduces as the cluster's fits cost them
  size_t buckets = 0;            // how many all-reduces were costed
};
CommContentionFit comm_contention_while_computing(const model::Cluster& cluster, const std::vector<double>& bucket_bytes,
                                                  double comm_beside_s, double backward_beside_s);
// The same for a profile from its gamma step: the step's bucket sizes (or the profile's
// buckets planned again when the state did not keep them) against the profile's cluster.
// nullopt when the state does not give how long the all-reduces ran (comm_s = 0).
std::optional<CommContentionFit> comm_contention_from_gamma(const GammaState& gamma, const model::Profile& profile);

// Throws FitError when the state lacks the compute step (a profile needs a model).
BuiltProfile build_profile(const CalibrationState& state, const BuildInfo& info);

}  // namespace gcu::calibrate
