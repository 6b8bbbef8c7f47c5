// How many timed calls each size of a collective sweep gets (collectives.h): enough for
// the statistic the fit uses to be known to a target relative standard error, within the
// sweep's time budget. Torch-free (unit-tested in calibrate_fit_tests).
//
// Why: on an oversubscribed machine (4 ranks on 2 cores) a 16-512 KiB call's time is mostly
// scheduling, coefficient of variation 0.4-0.8, while a 16 MiB call varies by 5-15%. A plan
// of "the same share of the budget for every size" (the sweep before this planner) left the
// small sizes 5-12 calls: their means moved by 30-40% between two sweeps minutes apart, and
// that is what the CNN's buckets and the sparsifiers' all-gathers are priced from
// (docs/validation.md, cause 24). Calls then go where the noise is.
//
//   want_i = clamp(max(time_target_i, ceil((cv_i / target_rel_se)^2)), floor_i, cap_i)
//
// with cv_i = sd / mean of the size's calls so far (the slowest rank's times). When the calls
// still wanted do not fit `budget_left_s` (calls x their mean time plus overhead), every
// want is scaled by one factor (bisection), never below the size's calls already made
// or `budget_floor`: a noisy size keeps proportionally more of the budget.
#pragma once

#include <vector>

namespace gcu::calibrate {

struct SizeNeed {
  int done = 0;             // timed calls made
  double mean_s = 0;        // of the calls made (0: unknown)
  double sd_s = 0;          // their standard deviation
  double cost_s = 0;        // one more call: its time plus the barrier and the idle gap
  int time_target = 0;      // calls from the sweep's per-size time target
  int floor = 0;            // calls at least (min_iters; min_iters_large from 1 MiB)
  int cap = 0;              // calls at most (max_iters)
};

// Relative standard error of the mean of `done` calls; +infinity when unknown.
double relative_standard_error(const SizeNeed& s);

// Total timed calls per size (>= done). target_rel_se <= 0: time targets only (the old
// plan). budget_left_s <= 0: no budget. budget_floor: the fewest calls any size ends with
// when the budget is short (the sweep's min_iters).
std::vector<int> plan_calls(const std::vector<SizeNeed>& sizes, double target_rel_se, double budget_left_s,
                            int budget_floor);

}  // namespace gcu::calibrate
