// Timed calls per size of a collective sweep (sweep_plan.h).
#include "calibrate/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gcu::calibrate {

double relative_standard_error(const SizeNeed& s) {
  if (s.done < 2 || !(s.mean_s > 0) || !std::isfinite(s.sd_s)) return std::numeric_limits<double>::infinity();
  return s.sd_s / s.mean_s / std::sqrt(double(s.done));
}

namespace {

// Calls wanted by one size before any budget.
int wanted(const SizeNeed& s, double target_rel_se) {
  double w = s.time_target;
  if (target_rel_se > 0 && s.mean_s > 0 && std::isfinite(s.sd_s)) {
    const double cv = s.sd_s / s.mean_s;
    w = std::max(w, std::ceil(cv * cv / (target_rel_se * target_rel_se)));
  }
  const int cap = std::max(s.cap, s.floor);
  return std::max(s.done, std::clamp(static_cast<int>(std::min<double>(w, cap)), s.floor, cap));
}

// The calls of every size at scale `lambda` of its want (never below done or the floor).
std::vector<int> scaled(const std::vector<SizeNeed>& sizes, const std::vector<int>& want, double lambda,
                        int budget_floor) {
  std::vector<int> out(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int lo = std::max(sizes[i].done, std::min(budget_floor, want[i]));
    out[i] = std::max(lo, static_cast<int>(std::ceil(lambda * want[i])));
    out[i] = std::min(out[i], std::max(lo, want[i]));
  }
  return out;
}

double cost_of(const std::vector<SizeNeed>& sizes, const std::vector<int>& calls) {
  double c = 0;
  for (size_t i = 0; i < sizes.size(); ++i) c += std::max(0, calls[i] - sizes[i].done) * std::max(0.0, sizes[i].cost_s);
  return c;
}

}  // namespace

std::vector<int> plan_calls(const std::vector<SizeNeed>& sizes, double target_rel_se, double budget_left_s,
                            int budget_floor) {
  std::vector<int> want(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) want[i] = wanted(sizes[i], target_rel_se);
  if (!(budget_left_s > 0) || cost_of(sizes, want) <= budget_left_s) return want;
  double lo = 0, hi = 1;
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi);
    (cost_of(sizes, scaled(sizes, want, mid, budget_floor)) <= budget_left_s ? lo : hi) = mid;
  }
  return scaled(sizes, want, lo, budget_floor);
}

}  // namespace gcu::calibrate
