// Noise-limited cells judged against the user's error goal (validate.h: error_bound,
// check_goal; docs/validation.md §2, "Noise-limited cells against a goal").
#include "validate/validate.h"

#include <cmath>

namespace gcu::validate {

double error_bound(const CellResult& c) {
  if (!c.ok) return std::nan("");
  // judged_noise() is the width of the error's 80% interval: half of it on either side.
  const double b = std::abs(c.judged_error()) + c.judged_noise() / 2;
  return std::isfinite(b) ? b : std::nan("");
}

GoalCheck check_goal(const std::vector<CellResult>& cells, double goal) {
  GoalCheck g;
  g.goal = goal;
  for (const auto& c : cells) {
    if (!c.ok) continue;
    ++g.ok;
    if (!c.noise_limited) continue;
    ++g.noise_limited;
    const double b = error_bound(c);  // NaN (no bound) compares false: open
    if (b <= goal) ++g.within;
    else ++g.open;
    g.max_bound = std::fmax(g.max_bound, b);  // fmax skips a NaN on either side
  }
  g.open_fraction = g.ok > 0 ? double(g.open) / g.ok : 0;
  return g;
}

}  // namespace gcu::validate
