// How many rounds would let each noise-limited cell count (validate.h: rounds_to_count,
// plan_rounds; docs/validation.md §2, "Rounds to count").
#include "validate/validate.h"

#include <algorithm>
#include <cmath>

namespace gcu::validate {
namespace {

// How the 80% interval of a mean of n rounds scales with n at a fixed round-to-round
// spread: t90(n - 1) / sqrt(n).
double interval_scale(int n) { return student_t90(n - 1) / std::sqrt(double(n)); }

}  // namespace

int rounds_to_count(const CellResult& c) {
  if (!c.ok || !c.noise_limited) return kRoundsCounted;
  const int n = int(c.round_values.size());
  if (n < 2) return kRoundsOneRound;
  const double e = std::abs(c.judged_error());
  const double u = c.judged_uncertainty();
  const double cal = c.calibration_uncertainty;
  if (!std::isfinite(e) || !std::isfinite(u)) return kRoundsOneRound;
  // The noise test is hypot(u, cal) > |e|: no number of rounds moves cal.
  if (!(cal < e)) return kRoundsCalibrationLimited;
  const double need = std::sqrt(e * e - cal * cal);
  const double now = interval_scale(n);
  for (int m = n + 1; m <= kRoundsPlanMax; ++m)
    if (u * interval_scale(m) / now < need) return m;
  return kRoundsBeyond;
}

RoundsPlan plan_rounds(const std::vector<CellResult>& cells) {
  RoundsPlan p;
  for (const auto& c : cells)
    if (c.ok) {
      ++p.ok;
      p.rounds = std::max(p.rounds, int(c.round_values.size()));
    }
  for (const auto& c : cells) {
    if (!c.ok || !c.noise_limited) continue;
    ++p.noise_limited;
    const int k = rounds_to_count(c);
    if (k == kRoundsCalibrationLimited) ++p.calibration_limited;
    else if (k == kRoundsBeyond) ++p.beyond;
    else if (k == kRoundsOneRound) ++p.one_round;
    else {
      if (k <= 2 * p.rounds) ++p.at_2x;
      if (k <= 4 * p.rounds) ++p.at_4x;
    }
  }
  if (p.ok > 0) {
    p.noise_limited_fraction_2x = double(p.noise_limited - p.at_2x) / p.ok;
    p.noise_limited_fraction_4x = double(p.noise_limited - p.at_4x) / p.ok;
  }
  return p;
}

}  // namespace gcu::validate
