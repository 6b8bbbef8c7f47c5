// The sequential pilot design (issue 12's cost goal; docs/calibrate.md §pilot): one seed
// first for every candidate, more seeds only where they can change the answer.
//   1. The baseline (and any scheme in `full_seeds`) runs every seed: its seed-to-seed
//      spread gives a one-seed candidate's interval its seed term (pilot_predict.h).
//   2. Every other scheme runs the first seed.
//   3. The predictions at the user's target (pilot_predict.h); a candidate that says
//      "more_seeds" runs its next seed, and so on until it does not or has them all:
//      `never` on fewer seeds (too thin a reason to rule a scheme out), or `uncertain`
//      for a reason seeds can settle (a misfit, a turn; not the biased-scheme cap or the
//      noise-scale check, which no seed count lifts). A `never` that its next seed
//      repeats is replicated, no longer one seed's plateau or rise: it stops there
//      (sequential_runs_next_seed).
// A candidate decided by its first seed costs 1/|seeds| of the full design. A pick made
// from fewer seeds is confirmed by running its others (`gcu pilot run --schemes X
// --seeds 2,3`, both files to `gcu pilot predict`); the replay on recorded protocols
// (scripts/validate_tta.py --sequential) does so for the predicted best per link.
#pragma once

#include "convergence/pilot.h"
#include "convergence/pilot_predict.h"

#include <string>
#include <vector>

namespace gcu::calibrate {

struct SequentialOptions {
  PilotPredictOptions predict;               // target, metric, baseline, T_0 (as gcu pilot predict)
  std::vector<std::string> full_seeds;       // schemes that run every seed besides the baseline
};

// Whether a candidate runs its next seed, from its prediction `now` (pilot_predict.h) and,
// from its second seed on, `before`, its prediction with one seed fewer (nullptr after
// the first): while `now` says "more_seeds", unless `now` and `before` are both `never`.
// The reason a `never` on fewer seeds asks for more is that one seed's plateau or rise is
// too thin a reason to rule a scheme out; a second seed that repeats it is the replicate
// that reason asks for. `uncertain` twice is not a finding to replicate: a further seed
// can still settle it (a turn that averages out, replicates that come to agree). No
// fitted number.
inline bool sequential_runs_next_seed(const nlohmann::ordered_json& now, const nlohmann::ordered_json* before) {
  if (!now.at("more_seeds").get<bool>()) return false;
  return !(before && now.at("status") == "never" && before->at("status") == "never");
}

// The options' check (std::invalid_argument), before anything runs or is written.
void check_sequential_options(const PilotOptions& opt, const SequentialOptions& seq);

// Runs the design, handing every record to `sink`: the config record (with a
// "sequential" object), the runs, and one {"type": "sequential", "scheme", "seeds" (run),
// "more_seeds" (ran more than the first), "status_after_first_seed",
// "evidence_after_first_seed"} record per scheme (the last two for candidates only). Returns those
// per-scheme records. Throws std::invalid_argument for bad options (a target <= 0, a
// baseline not among the schemes), as run_pilots does otherwise.
std::vector<nlohmann::ordered_json> run_pilots_sequential(const PilotOptions& opt, const SequentialOptions& seq,
                                                          const RecordSink& sink, const PilotProgress& progress = {});

}  // namespace gcu::calibrate
