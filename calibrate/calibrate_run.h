// One `gcu calibrate` run in steps (internal to gcu_calibrate; the entry point is
// run_calibration, calibrate.h). CalibrationRun holds the process group, the typed state
// (state.h) and the budget; run_calibration (calibrate.cpp) sets it up, then calls the
// steps of calibrate_steps.cpp in the order of calibration_steps(), each of which
// measures (or is skipped: done before a resume, --skip, or too little budget left),
// stores its struct in the state and saves the state file; then the profile is written.
// Torch-free header.
#pragma once

#include "calibrate/calibrate.h"
#include "calibrate/codecs.h"
#include "calibrate/compute.h"
#include "calibrate/group.h"
#include "calibrate/state.h"
#include "util/clock.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gcu::calibrate {

// Shares of the time left (with --budget-s) that one step may use.
inline constexpr double kCollectivesBudgetShare = 0.35;
inline constexpr double kCodecsBudgetShare = 0.25;
inline constexpr double kConvergenceBudgetShare = 0.8;
// The time left (s) a step needs to start; below it the step is skipped ("time budget").
inline constexpr double kComputeMinLeftS = 0;
inline constexpr double kGammaMinLeftS = 2;
inline constexpr double kCollectivesMinLeftS = 5;
inline constexpr double kCodecsMinLeftS = 3;
inline constexpr double kErrorsMinLeftS = 3;
inline constexpr double kCodecGradientsMinLeftS = 3;
inline constexpr double kContentionMinLeftS = 3;
inline constexpr double kConvergenceMinLeftS = 10;
// "No budget": time left when --budget-s is 0.
inline constexpr double kUnlimitedS = 1e30;
// Process-group timeout: 2 x the budget plus this slack, at least kMinGroupTimeoutS.
inline constexpr double kMinGroupTimeoutS = 600;
inline constexpr double kGroupTimeoutSlackS = 300;
// Learning rate of the convergence runs (SGD, momentum 0.9).
inline constexpr double kConvergenceLr = 0.05;
// Gradient snapshots skipped before the errors step collects (early training is atypical).
inline constexpr int kErrorSkipIterations = 5;

struct CalibrationRun {
  explicit CalibrationRun(const CalibrateOptions& o) : opt(o) {}
  bool lead() const { return group->rank() == 0; }
  double left();                       // collective: every rank calls it at the same point
  void say(const std::string& s) const;  // progress line (rank 0)
  void save() const;                   // the state file (rank 0)
  void skip(const std::string& what, const std::string& why);
  // Whether step `s` runs now: not done before, not in --skip, at least min_left_s left
  // (collective). Says so.
  bool wanted(const std::string& s, double min_left_s);

  const CalibrateOptions& opt;
  Progress progress;                   // the caller's (rank 0 only)
  std::unique_ptr<Group> group;
  int local_world = 1;                 // ranks on this node
  int threads = 1;                     // torch threads per rank
  int cores = 1;                       // CPUs this process may run on (sched_getaffinity)
  double t0 = 0;                       // start (steady clock, s)
  double extra_budget_s = 0;           // added to --budget-s (--collective-calls-scale's extra sweep time)
  std::string state_path;
  CalibrationState state;
  std::set<std::string> done;          // steps completed before a resume (all ranks agree)
  ComputeOptions compute;              // model, batch sizes, iterations
  int main_batch = 0;                  // the largest batch size
  std::vector<std::string> schemes;    // --schemes, else every registered scheme's default spec
  std::vector<std::string> codec_schemes;  // codec timing: --schemes, else default_codec_specs()
  std::string contention_scheme;
  bool convergence_off = false;        // --convergence-schemes -
  std::vector<std::string> convergence_schemes;
  std::vector<std::string> error_schemes;  // timed schemes + convergence schemes
  std::optional<GradientSet> gradients;    // rank 0: collected by the first step that needs them
};

using util::now_s;  // util/clock.h

// calibrate_steps.cpp: one function per step of calibration_steps().
void step_compute(CalibrationRun& run);
void step_gamma(CalibrationRun& run);
void step_collectives(CalibrationRun& run);
void step_codecs(CalibrationRun& run);
void step_errors(CalibrationRun& run);
void step_codec_gradients(CalibrationRun& run);
void step_contention(CalibrationRun& run);
void step_convergence(CalibrationRun& run);

}  // namespace gcu::calibrate
