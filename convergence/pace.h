// The pace model (pure): a pilot sees a scheme's compression error only over its first
// few percent of training; probes see it later along the baseline's own trajectory, and the
// TTA model's own multiplier formula turns the change into a factor on the pilot's
// estimate. No constant is fitted to any recording.
//
// Probes are runs branched from the baseline's state at iterations N_k (the records of
// `gcu pilot run --branch-at N`, the late pilots' format): every scheme, with its state
// fresh at the branch (error-feedback residuals, PowerSGD factors) and trained on for a
// short window, reports its relative compression error e_k over that window (mean over
// seeds). The pilot reports e_p over its own window.
//
//   m(e) = 1 + e / (1 - e)   biased, no error feedback (PowerSGD, signSGD, top-k, ...):
//                            the TTA model's biased form with its theory constant 1, e
//                            taken at most kPaceMaxError;
//   m(e) = 1 + e / p         unbiased (QSGD, TernGrad, THC without saturation): the
//                            variance form over p workers;
//   m(e) = 1                 error feedback: the residual carries the error into later
//                            steps, so the per-step error does not set the pace.
//
//   factor = m(mean_k e_k) / m(e_p), and the estimate's iterations are multiplied by it.
//   The 80% interval's ends are multiplied by the smallest and the largest of
//   m(e_k) / m(e_p) over the branch points (and by 1 when every one is above or below it):
//   a steep or uneven error trajectory widens the interval. Status (reaches / never /
//   uncertain) is left as the pilots decided it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

inline constexpr double kPaceMaxError = 0.95;

enum class PaceForm { Biased, Unbiased, None };

// The form for a scheme's traits.
PaceForm pace_form(bool biased, bool error_feedback);
const char* pace_form_name(PaceForm f);

// m(e) of the form, for workers >= 1 and a finite e >= 0 (throws std::invalid_argument
// otherwise).
double pace_multiplier(PaceForm f, double e, int workers);

struct PaceFactor {
  double factor = 1;                  // m(mean e_k) / m(e_p)
  double factor_lo = 1, factor_hi = 1;  // the interval's multipliers (<= 1 <= hi... see above)
  double pilot_error = 0;             // e_p
  double probe_error = 0;             // mean over branch points of e_k
  std::vector<int> branch_at;         // N_k, increasing
  std::vector<double> probe_errors;   // e_k
};

// The factor for one scheme; nullopt when there is no probe. Throws std::invalid_argument
// for a non-finite or negative error, a branch point < 1 or repeated, workers < 1.
std::optional<PaceFactor> pace_factor(PaceForm form, double pilot_error, const std::vector<int>& branch_at,
                                      const std::vector<double>& probe_errors, int workers);

}  // namespace gcu::calibrate
