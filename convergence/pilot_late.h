// Late pilots (`gcu pilot run --branch-at N`): every scheme trained on from the
// baseline's own state at iteration N, for a pilot's length. `gcu pilot predict` reads
// their records beside the pilots (PilotPredictOptions::late) and uses the branch point
// closest to T_0 / 2, below T_0, in two ways (docs/model.md §4.2, docs/validation-tta.md
// "Late pilots"):
//
//  * the stall test: the scheme's gap to the baseline (its metric minus the baseline's,
//    seed by seed on the same data order) over the branch's last three quarters (the
//    first is the compressor's start-up: empty residuals, fresh factors) grows by `slope`
//    per iteration, the mean of the seeds' least-squares slopes. The baseline still has
//    `pace` = (L_0(N) - target) / (T_0 - N) per iteration to go on average. When
//    slope - t SE > pace (t: Student's one-sided 90% for seeds - 1 degrees of freedom; at
//    least 2 seeds), the scheme loses ground faster than the baseline gains it: it makes
//    no net progress toward the target after N, and the estimate becomes `never`.
//  * the error ratio: the scheme's relative error over the branch against the pilot's
//    rescales a multiplier-basis estimate's excess after N (PowerSGD's error falls during
//    a pilot and grows later): rho_late = 1 + (rho - 1) e_late / e_pilot, iterations =
//    rho T_0 + (rho_late - rho)(T_0 - N), beyond late_min_ratio either way.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace gcu::calibrate {

struct PilotPredictOptions;

// One scheme's late pilots from one branch point.
struct LateBranch {
  std::vector<double> errors;                       // each seed's relative error over the branch (finite ones)
  std::map<uint64_t, std::map<int, double>> evals;  // seed -> iteration -> metric (NaN: not finite)
  // seed -> iteration -> the relative error measured so far (the eval records' running
  // figure; finite ones): the pace model's probes read it at a window shorter than the branch.
  std::map<uint64_t, std::map<int, double>> running_error;
};
using LateBranches = std::map<int, LateBranch>;  // branch point N -> its runs

// The stall test's figures (metric units per iteration).
struct LateGap {
  double slope = 0;  // mean over seeds of the gap's least-squares slope
  double se = 0;     // its standard error over the seeds
  double t = 0;      // Student's one-sided 90% quantile for seeds - 1 degrees of freedom
  double pace = 0;   // the baseline's mean pace from N to the target
  size_t seeds = 0;
  // The test: at least 2 seeds, the slope beyond the pace at 90% one-sided confidence.
  bool stalled() const { return seeds >= 2 && slope - t * se > pace; }
  // The point estimate alone beyond the pace: with fewer seeds than the baseline, the
  // sequential design's reason to run the next one.
  bool outpaces() const { return slope > pace; }
};

// The gap's figures at branch point `at` against the baseline's runs from it; nullopt when
// no seed has >= 3 finite gap points, the baseline has no eval at N, or the baseline at N is
// already at or below the target (or N >= T_0). One seed: se 0 and t NaN (never stalled).
std::optional<LateGap> late_gap(const LateBranch& scheme, const LateBranch& baseline, int at, double t0,
                                double target);

// Applies the late pilots of one scheme to its tta object (pilot_predict.h): the stall
// test first (a scheme not already `never`), then the error ratio (`w`: the pilot's
// relative error). `baseline`: the baseline's late pilots (null: none, no stall test).
// A scheme piloted with fewer seeds than the baseline whose gap outpaces the baseline
// without the test's confidence gets more_seeds (the sequential design runs its next seed,
// late pilot included) and an evidence line; its estimate stays.
// Adds a "late" object and an evidence line when either changes or qualifies the estimate.
void apply_late(nlohmann::ordered_json& tta, const LateBranches& scheme, const LateBranches* baseline, double w,
                const PilotPredictOptions& o);

}  // namespace gcu::calibrate
