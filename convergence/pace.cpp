// The pace model (pace.h): the probes' relative error against the pilot's moves a biased
// scheme's multiplier.
#include "convergence/pace.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gcu::calibrate {

bool pace_applies(bool biased, bool error_feedback) { return biased && !error_feedback; }

namespace {
void check_error(double e) {
  if (!std::isfinite(e) || e < 0)
    throw std::invalid_argument("pace: relative error " + std::to_string(e) + " must be finite and >= 0");
}
}  // namespace

std::optional<PaceShift> pace_shift(double pilot_error, const std::vector<int>& branch_at,
                                    const std::vector<double>& probe_errors, double slope) {
  if (!std::isfinite(slope) || slope < 0)
    throw std::invalid_argument("pace: slope " + std::to_string(slope) + " must be finite and >= 0");
  if (branch_at.size() != probe_errors.size())
    throw std::invalid_argument("pace: " + std::to_string(branch_at.size()) + " branch points but " +
                                std::to_string(probe_errors.size()) + " probe errors");
  check_error(pilot_error);
  if (branch_at.empty()) return std::nullopt;
  for (size_t i = 0; i < branch_at.size(); ++i) {
    if (branch_at[i] < 1) throw std::invalid_argument("pace: branch point " + std::to_string(branch_at[i]) + " must be >= 1");
    if (i > 0 && branch_at[i] <= branch_at[i - 1])
      throw std::invalid_argument("pace: branch points must increase (" + std::to_string(branch_at[i - 1]) + ", " +
                                  std::to_string(branch_at[i]) + ")");
    check_error(probe_errors[i]);
  }
  PaceShift s;
  s.pilot_error = pilot_error;
  s.branch_at = branch_at;
  s.probe_errors = probe_errors;
  double sum = 0;
  for (double e : probe_errors) sum += e;
  s.probe_error = sum / double(probe_errors.size());
  const auto [lo, hi] = std::minmax_element(probe_errors.begin(), probe_errors.end());
  s.shift = slope * (s.probe_error - pilot_error);
  s.shift_lo = slope * (*lo - pilot_error);
  s.shift_hi = slope * (*hi - pilot_error);
  return s;
}

double paced_multiplier(double rho, double shift) { return std::max(rho + shift, std::min(rho, 1.0)); }

double level_multiplier(double rho, double error, double slope) {
  check_error(error);
  if (!std::isfinite(slope) || slope < 0)
    throw std::invalid_argument("pace: slope " + std::to_string(slope) + " must be finite and >= 0");
  return std::max(rho, 1 + slope * error);
}

}  // namespace gcu::calibrate
