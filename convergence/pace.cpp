// The pace model (pace.h): the TTA model's multiplier form at the probes' error over the
// pilot's.
#include "convergence/pace.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gcu::calibrate {

PaceForm pace_form(bool biased, bool error_feedback) {
  if (error_feedback) return PaceForm::None;
  return biased ? PaceForm::Biased : PaceForm::Unbiased;
}

const char* pace_form_name(PaceForm f) {
  switch (f) {
    case PaceForm::Biased: return "biased: 1 + e/(1-e)";
    case PaceForm::Unbiased: return "unbiased: 1 + e/p";
    case PaceForm::None: return "error feedback: 1";
  }
  return "?";
}

double pace_multiplier(PaceForm f, double e, int workers) {
  if (!std::isfinite(e) || e < 0)
    throw std::invalid_argument("pace: relative error " + std::to_string(e) + " must be finite and >= 0");
  if (workers < 1) throw std::invalid_argument("pace: workers = " + std::to_string(workers) + " must be >= 1");
  switch (f) {
    case PaceForm::Biased: {
      const double x = std::min(e, kPaceMaxError);
      return 1 + x / (1 - x);
    }
    case PaceForm::Unbiased: return 1 + e / workers;
    case PaceForm::None: return 1;
  }
  return 1;
}

std::optional<PaceFactor> pace_factor(PaceForm form, double pilot_error, const std::vector<int>& branch_at,
                                      const std::vector<double>& probe_errors, int workers) {
  if (branch_at.size() != probe_errors.size())
    throw std::invalid_argument("pace: " + std::to_string(branch_at.size()) + " branch points but " +
                                std::to_string(probe_errors.size()) + " probe errors");
  if (branch_at.empty()) return std::nullopt;
  for (size_t i = 0; i < branch_at.size(); ++i) {
    if (branch_at[i] < 1) throw std::invalid_argument("pace: branch point " + std::to_string(branch_at[i]) + " must be >= 1");
    if (i > 0 && branch_at[i] <= branch_at[i - 1])
      throw std::invalid_argument("pace: branch points must increase (" + std::to_string(branch_at[i - 1]) + ", " +
                                  std::to_string(branch_at[i]) + ")");
  }
  PaceFactor f;
  f.pilot_error = pilot_error;
  f.branch_at = branch_at;
  f.probe_errors = probe_errors;
  const double m_pilot = pace_multiplier(form, pilot_error, workers);
  double sum = 0, lo = 1, hi = 1;
  for (double e : probe_errors) {
    const double r = pace_multiplier(form, e, workers) / m_pilot;
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    sum += e;
  }
  f.probe_error = sum / double(probe_errors.size());
  f.factor = pace_multiplier(form, f.probe_error, workers) / m_pilot;
  f.factor_lo = lo;
  f.factor_hi = hi;
  return f;
}

}  // namespace gcu::calibrate
