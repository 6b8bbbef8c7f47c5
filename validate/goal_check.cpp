// Noise-limited cells judged against the user's error goal (validate.h: error_bound,
// check_goal; docs/validation.md §2, "Noise-limited cells against a goal").
#include "validate/validate.h"

#include <algorithm>
#include <cmath>

namespace gcu::validate {

double error_bound(const CellResult& c) {
  if (!c.ok) return std::nan("");
  const double e = c.judged_error();
  const double u = c.judged_uncertainty();
  const double cal = c.calibration_uncertainty;
  if (!std::isfinite(e) || !std::isfinite(u) || !std::isfinite(cal)) return std::nan("");
  // Both are widths of 80% intervals: half of their quadrature sum is the interval's
  // half-width around the judged error.
  return std::abs(e) + std::hypot(u, cal) / 2;
}

GoalCheck check_goal(const std::vector<CellResult>& cells, double goal) {
  GoalCheck g;
  g.goal = goal;
  for (const auto& c : cells) {
    if (!c.ok) continue;
    ++g.ok;
    if (!c.noise_limited) continue;
    ++g.noise_limited;
    const double b = error_bound(c);
    if (std::isfinite(b) && b <= goal) {
      ++g.within;
    } else {
      ++g.open;
    }
    if (std::isfinite(b)) g.max_bound = std::isfinite(g.max_bound) ? std::max(g.max_bound, b) : b;
  }
  g.open_fraction = g.ok > 0 ? double(g.open) / g.ok : 0;
  return g;
}

}  // namespace gcu::validate
