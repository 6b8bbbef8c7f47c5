// Predictions from paired pilot records (pilot.h's JSON lines) with the relative progress
// model (convergence/progress_fit.h). Torch-free: `gcu pilot predict` and the validation script
// (scripts/validate_tta.sh) use it on recorded runs.
//
// Per scheme: its seeds' eval curves (metric: held-out loss, or 1 - accuracy) truncated to
// the pilot length, paired with the baseline's curves of the same seeds, evaluated on the
// iterations every curve has (runs stopped early or diverged are padded with NaN). The
// noise-scale cross-check uses B_simple (mean over the baseline's runs) and the scheme's
// relative_error as w, for unbiased schemes without error feedback only.
// The result is a "tta" object per scheme (schema in docs/calibrate.md §pilot) that
// `gcu pilot predict --profile` writes into convergence.schemes.<spec>.pilot.
#pragma once

#include "convergence/pace.h"
#include "convergence/progress_fit.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct PilotPredictOptions {
  std::string baseline = "none";          // the reference scheme
  std::string metric = "loss";            // "loss" | "error" (1 - accuracy)
  double target = 0;                      // in the metric's units
  int pilot_iterations = 0;               // 0: every recorded iteration
  std::optional<double> baseline_iterations;  // measured T_0 (absent: extrapolated)
  int bootstrap = 200;
  double max_multiplier = 100;
  // The interval's extrapolation term per unit ln(T_0 / pilot end), log scale, below and
  // above the estimate (model::ProgressOptions; defaults fitted on the recorded
  // validations, docs/validation-tta.md).
  double extrapolation_sigma_lo = model::kExtrapolationSigmaLo, extrapolation_sigma_hi = model::kExtrapolationSigmaHi;
  // A biased scheme without error feedback is at most `uncertain` until its pilot reaches
  // the target (model::ProgressOptions::biased_without_feedback); off: decided by the fit.
  bool biased_rule = true;
  // A scheme piloted with one seed (the sequential design) gets the one-seed term, the
  // baseline's own seed-to-seed spread of a fitted multiplier (model::ProgressOptions::
  // seed_log_sigma), when the baseline has >= 2 seeds.
  bool one_seed_term = true;
  // A decided status (reaches / never) must hold over the last `stable_looks` pilot
  // lengths: the pilot, and its prefixes ending one, two, ... evaluations earlier; a
  // decision that a slightly shorter pilot does not make sits on a threshold's edge and
  // becomes `uncertain` (evidence: "unstable"), which more seeds can settle. 1: the
  // pilot's own decision only. Default 3: the pilot and its two shorter prefixes
  // (docs/model.md §4.2, docs/validation-tta.md "Decisions stable under the pilot's length").
  int stable_looks = 3;
  // Late pilots (records of `gcu pilot run --branch-at N` among the inputs): each scheme
  // on from the baseline's state at iteration N. Their relative error against the pilot's
  // rescales a multiplier-basis estimate's excess for the iterations after N (the branch
  // point among them closest to T_0/2, below T_0): rho_late = 1 + (rho - 1) e_late /
  // e_pilot, iterations = rho T_0 + (rho_late - rho)(T_0 - N). What it is for: PowerSGD's
  // error falls during a pilot (warm-started factors converge) and grows later in
  // training (docs/validation-tta.md, "Late pilots"). off: late records are ignored.
  bool late = true;
  // With `late`: the stall test (pilot_late.h) turns an estimate `never` when the
  // scheme's gap to the baseline grows after N, at 90% one-sided confidence over the late
  // pilot's seeds (>= 2), faster than the baseline's mean pace from N to the target.
  bool late_stall = true;
  // Only an error ratio beyond this (either way: e_late / w > r or < 1/r) rescales; closer
  // to 1 is the seeds' noise (three seeds of one late pilot spread by ~10% in ln) and
  // leaves the pilot's estimate as it is. 1: every ratio.
  double late_min_ratio = 1.5;
  // The pace model (pace.h): the late pilots are probes. For a biased scheme without error
  // feedback, the branch points' relative error (below T_0) against the pilot's moves the
  // multiplier by pace_slope per unit and widens its interval by the branches' spread; the
  // error ratio above is not applied (the stall test still is). Off: the late pilots as above
  // (`gcu pilot predict` turns it on in the level form by default).
  bool pace = false;
  PaceForm pace_form = PaceForm::Change;  // with `pace`: the change form or the level form (pace.h)
  double pace_slope = kPaceSlope;
  // With `pace`: each branch's error over its first this many iterations (the eval
  // records' running figure), a probe that short; 0: over the whole branch.
  int probe_iterations = 0;
};

// Throws std::invalid_argument naming the option when a number cannot be used: a target
// that is not finite, a metric other than loss / error, a baseline T_0 that is not finite
// and > 0, bootstrap outside [1, 1e5], a max multiplier <= 1, ... (predict_from_pilots
// calls it first; the sequential design before any run).
void check_predict_options(const PilotPredictOptions& o);

// `records`: the JSON lines of one or more pilot files. Returns {"<spec>": tta object}
// for every scheme recorded, the baseline included. A scheme's seeds may be a subset of
// the baseline's (each paired with the baseline's run of the same seed). Throws
// std::invalid_argument when the baseline has no runs or a scheme has a seed it lacks.
nlohmann::ordered_json predict_from_pilots(const std::vector<nlohmann::json>& records,
                                           const PilotPredictOptions& opt);

// The profile's convergence.schemes.<spec>.pilot object from a tta object (multipliers
// relative to T_0, so that the model rescales them to the profile's baseline_iterations).
nlohmann::ordered_json pilot_profile_entry(const nlohmann::ordered_json& tta);

}  // namespace gcu::calibrate
