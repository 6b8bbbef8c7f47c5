// The status rule of the relative progress model (reaches / never / uncertain, with the
// evidence) and the noise-scale cross-check: internal to convergence/progress_fit.cpp, kept in
// its own file with its thresholds (docs/model.md §4.2). Pure: no I/O.
#pragma once

#include "convergence/progress_fit.h"

#include <string>

namespace gcu::model::progress_detail {

// A number with 4 significant digits, for evidence strings.
std::string fmt(double v);

// Sets p.status from the point fit and the bootstrap's tallies, and appends the evidence:
// the cap, a plateau in `plateau_frac` of the replicates, a rising local rho, a misfit, a
// rising loss, a too-early pilot. `ms` is the scheme's seed-mean curve, `last_sem` the
// standard error of its last evaluation, `asymptote` its fitted power-law asymptote.
void decide_status(ProgressPrediction& p, const ReferenceCurve& l0, const LossCurve& ms, double last_sem,
                   double asymptote, double plateau_frac, const ProgressOptions& o);

// Noise-scale cross-check (unbiased schemes, all of o's noise fields set): widens the
// interval to contain M T_0 when M and the fit differ by more than 2x, and makes a
// `reaches` `uncertain` when M is the larger.
void cross_check_noise_scale(ProgressPrediction& p, double t0, const ProgressOptions& o);

}  // namespace gcu::model::progress_detail
