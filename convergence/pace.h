// The pace model (pure): a pilot sees a scheme's compression error only over its first
// few percent of training; probes see it later along the baseline's own trajectory, and
// the change moves the pilot's estimate.
//
// Probes are runs branched from the baseline's state at iterations N_k < T_0 (the records
// of `gcu pilot run --branch-at N`, the late pilots' format): every scheme, with its state
// fresh at the branch (error-feedback residuals, PowerSGD factors) and trained on for a
// short window, reports its relative compression error e_k over that window (mean over
// seeds). The pilot reports e_p over its own window. For a biased scheme without error
// feedback (PowerSGD, signSGD, top-k, ...), the multiplier rho = iterations / T_0 moves by
//
//   d = slope x (mean_k e_k - e_p),        rho' = rho + d  (never below min(rho, 1)),
//
// and the 80% interval's ends by slope x (min_k e_k - e_p) and slope x (max_k e_k - e_p)
// (each never below min(end, T_0)): an uneven error trajectory widens the interval.
// Unbiased schemes and schemes with error feedback are left as the pilots predict them
// (the recorded protocols: their pace does not follow their per-step error). Status
// (reaches / never / uncertain) is left as the pilots decided it.
//
// `slope` (kPaceSlope) is the one fitted constant: on the four recorded protocols
// (docs/validation-tta.md, "Summary"), PowerSGD's multiplier grew by 12-17 per unit of the
// relative error it gained after the pilot, and the ranking's Kendall tau had its plateau
// for slopes 10-15. The TTA model's theory form (1 + e/(1-e), slope 1 near 0) moves
// PowerSGD by a tenth of that and overreacts to signSGD near e = 1. The change form is not
// the default: on a setting it had not seen it ranked worse than the pilots alone.
//
// The level form (PaceForm::Level, `--pace level`, the default): PowerSGD's multiplier
// follows the level of its compression error later in training, 1 + slope x e with the
// same slope, not its change after the pilot (docs/validation-tta.md, "Summary"). So for a
// biased scheme without error feedback whose probes' mean error e is below
// kPaceLevelMaxError (PowerSGD; not signSGD or top-k, whose e ~ 0.9 would give multipliers
// far above what they take), the multiplier is at least 1 + slope x e (the pilots'
// estimate where it is larger), and the interval spans both estimators: its upper end at
// least 1 + slope x the largest e_k, its lower end the pilots'.
#pragma once

#include <optional>
#include <vector>

namespace gcu::calibrate {

inline constexpr double kPaceSlope = 12.0;
inline constexpr double kPaceLevelMaxError = 0.5;

enum class PaceForm { Change, Level };

// Whether the pace model moves a scheme of these traits.
bool pace_applies(bool biased, bool error_feedback);

struct PaceShift {
  double shift = 0;                 // d, in multiplier units (iterations / T_0)
  double shift_lo = 0, shift_hi = 0;  // the interval ends' shifts (shift_lo <= shift <= shift_hi)
  double pilot_error = 0;           // e_p
  double probe_error = 0;           // mean over branch points of e_k
  std::vector<int> branch_at;       // N_k, increasing
  std::vector<double> probe_errors; // e_k
};

// The shift for one scheme; nullopt when there is no probe. Throws std::invalid_argument
// for a non-finite or negative error, a branch point < 1 or not increasing, a slope that is
// not finite and >= 0, or as many errors as branch points not given.
std::optional<PaceShift> pace_shift(double pilot_error, const std::vector<int>& branch_at,
                                    const std::vector<double>& probe_errors, double slope = kPaceSlope);

// rho' (or an interval end's) from rho and a shift: rho + d, never below min(rho, 1).
double paced_multiplier(double rho, double shift);

// The level form's multiplier (or an interval end's): max(rho, 1 + slope x error). Throws
// std::invalid_argument for a non-finite or negative error or slope.
double level_multiplier(double rho, double error, double slope = kPaceSlope);

}  // namespace gcu::calibrate
