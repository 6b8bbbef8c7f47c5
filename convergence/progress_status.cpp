// The status rule of the relative progress model and the noise-scale cross-check
// (progress_status.h). Thresholds and their reasons: docs/model.md §4.2.
#include "convergence/progress_status.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gcu::model {
namespace progress_detail {
namespace {

// Decision thresholds (hyperparameters of the status rule; docs/model.md §4.2).
constexpr double kDecide = 0.9;          // replicate agreement needed for reaches / never
constexpr double kRisingRho = 1.5;       // late/early local rho above this: "rising"
constexpr double kMisfit = 0.25;         // holdout rmse / pilot's loss drop above this: misfit
constexpr double kCrossCheck = 2.0;      // noise-scale vs fit disagreement that widens
constexpr double kMinProgress = 0.25;    // scheme's pilot loss drop / baseline's below this: too early
constexpr double kGivenBack = 0.25;      // share of its best progress lost by the pilot's end: rising
constexpr double kTurning = 0.05;        // the same share above this: turning up, at most uncertain

// The pilot's progress against the baseline's over the same iterations (seed means).
// too_early: the scheme's loss dropped less than kMinProgress x the baseline's (a fit of
// a curve that has barely moved is an extrapolation, e.g. signSGD's slow start).
// given_back: the scheme lost more than kGivenBack of its best progress by the pilot's
// end while the baseline kept at least 90% of its own (the onset of divergence, e.g.
// EF-signSGD at a learning rate tuned for SGD). turning: the same with more than kTurning
// lost (a pilot that ends as its loss turns upward: EF-signSGD and ef(topkc) on fortunes).
struct Progress {
  double drop_frac = 1, given_back_frac = 0;
  bool too_early = false, given_back = false, turning = false;
};
// The rise must also exceed twice the standard error of the last seed-mean evaluation
// (`last_sem`), so that an early bounce of noisy seeds is not read as divergence.
Progress progress_of(const LossCurve& base, const LossCurve& s, double last_sem) {
  Progress r;
  auto best_and_last = [](const LossCurve& c, double& start, double& best, double& last) {
    start = c.loss.front(), best = start, last = c.loss.back();
    for (double v : c.loss)
      if (std::isfinite(v)) best = std::min(best, v);
  };
  double b0, bb, bl, s0, sb, sl;
  best_and_last(base, b0, bb, bl);
  best_and_last(s, s0, sb, sl);
  const double base_drop = b0 - bl, s_drop = s0 - sl;
  if (!(std::isfinite(base_drop) && std::isfinite(s_drop)) || base_drop <= 0) return r;
  r.drop_frac = std::max(0.0, s_drop) / base_drop;
  r.too_early = r.drop_frac < kMinProgress;
  const double s_best = s0 - sb, b_best = b0 - bb;
  if (s_best > 0 && b_best > 0) {
    r.given_back_frac = (sl - sb) / s_best;
    const bool significant = (bl - bb) / b_best < 0.1 && sl - sb > 2 * last_sem;
    r.given_back = r.given_back_frac > kGivenBack && significant;
    r.turning = r.given_back_frac > kTurning && significant;
  }
  return r;
}

}  // namespace

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(4);
  s << v;
  return s.str();
}

// The status rule (docs/model.md §4.2) and its evidence: the cap, a plateau, a rising
// local rho, a misfit, a rising loss, a too-early pilot, too few replicates reaching.
void decide_status(ProgressPrediction& p, const ReferenceCurve& l0, const LossCurve& ms, double last_sem,
                   double asymptote, double plateau_frac, const ProgressOptions& o) {
  // Rising local rho: the multiplier fitted on the pilot's second half vs its first half.
  const double mid = ms.t[ms.t.size() / 2];
  const double rho_early = fit_multiplier(l0, ms, ms.t.front(), mid), rho_late = fit_multiplier(l0, ms, mid, ms.t.back());
  const bool rising = rho_late > kRisingRho * rho_early && rho_late > 1.5;
  const double drop = std::max(1e-12, l0.points().loss.front() - l0.points().loss.back());
  const double misfit = std::min(p.holdout_rmse_lag, p.holdout_rmse_multiplier) / drop;
  if (p.multiplier > o.max_multiplier) p.evidence.push_back("multiplier " + fmt(p.multiplier) + " above the cap " + fmt(o.max_multiplier));
  if (plateau_frac > 0)
    p.evidence.push_back("plateau: fitted asymptote " + fmt(asymptote) + " above the target " + fmt(o.target) +
                         " in " + fmt(100 * plateau_frac) + "% of replicates");
  if (rising) p.evidence.push_back("rising rho: " + fmt(rho_early) + " on the first half, " + fmt(rho_late) + " on the second");
  if (misfit > kMisfit) p.evidence.push_back("misfit: neither model predicts the pilot's last third (rmse " + fmt(100 * misfit) + "% of the loss drop)");
  const Progress pr = progress_of(l0.points(), ms, last_sem);
  if (pr.given_back)
    p.evidence.push_back("rising loss: gave back " + fmt(100 * pr.given_back_frac) + "% of its best progress by the pilot's end, the baseline did not");
  if (pr.too_early)
    p.evidence.push_back("too early: the pilot's loss dropped " + fmt(100 * pr.drop_frac) + "% as much as the baseline's");
  // The biased-scheme rule's cap (below) holds whatever the fit says.
  if (o.biased_without_feedback && !o.negligible_error && !(ms.loss.back() <= o.target)) p.seeds_cannot_settle = true;
  if (p.multiplier > o.max_multiplier || plateau_frac >= kDecide || (rising && plateau_frac >= 0.5) || pr.given_back) {
    p.status = PilotStatus::Never;
  } else if (p.reach_fraction >= kDecide && plateau_frac < 1 - kDecide && misfit <= kMisfit && !rising &&
             !pr.too_early) {
    p.status = PilotStatus::Reaches;
    // A biased scheme without error feedback has no guarantee of reaching the baseline's
    // loss; only a pilot that is already there shows it (docs/model.md §4.2).
    if (o.biased_without_feedback && !o.negligible_error && !(ms.loss.back() <= o.target)) {
      p.status = PilotStatus::Uncertain;
      p.evidence.push_back("uncertain: a biased scheme without error feedback need not reach the baseline's loss, "
                           "and its pilot ends at " + fmt(ms.loss.back()) + ", above the target " + fmt(o.target));
    }
    // A loss turning upward at the pilot's end is not extrapolated (docs/model.md §4.2).
    if (p.status == PilotStatus::Reaches && pr.turning) {
      p.status = PilotStatus::Uncertain;
      p.evidence.push_back("turning up: gave back " + fmt(100 * pr.given_back_frac) +
                           "% of its best progress by the pilot's end, the baseline did not");
    }
  } else {
    p.status = PilotStatus::Uncertain;
    if (p.reach_fraction < kDecide) p.evidence.push_back("only " + fmt(100 * p.reach_fraction) + "% of replicates reach below the cap");
  }
}

// Noise-scale cross-check (unbiased schemes): widens the interval to include the
// noise-scale prediction when the two disagree by more than kCrossCheck x.
void cross_check_noise_scale(ProgressPrediction& p, double t0, const ProgressOptions& o) {
  if (!(o.b_simple && o.variance_w && o.global_batch > 0 && o.workers > 0)) return;
  const double m = noise_scale_multiplier(*o.b_simple, o.global_batch, *o.variance_w, o.workers);
  p.noise_scale_multiplier = m;
  if (p.status != PilotStatus::Never && (m > kCrossCheck * p.multiplier || p.multiplier > kCrossCheck * m)) {
    p.widened = true;
    const double x = m * t0;
    p.lo = std::min(p.lo.value_or(x), x), p.hi = std::max(p.hi.value_or(x), x);
    p.evidence.push_back("noise-scale multiplier " + fmt(m) + " disagrees with the fit's " + fmt(p.multiplier) +
                         " by more than 2x: interval widened to include it");
    // The pilot sees only training's beginning, where the gradient noise is small; the
    // noise scale grows as the loss falls (McCandlish et al.), so a theory that says
    // much slower outweighs a short pilot that says on par: not a confident reach.
    if (p.status == PilotStatus::Reaches && m > kCrossCheck * p.multiplier) {
      p.status = PilotStatus::Uncertain;
      p.seeds_cannot_settle = true;
      p.evidence.push_back("uncertain: the noise scale predicts " + fmt(m / p.multiplier) +
                           "x the pilot's iterations");
    }
  }
}

}  // namespace progress_detail

double noise_scale_multiplier(double b_simple, double global_batch, double w, int workers) {
  if (!(b_simple >= 0) || !(global_batch > 0) || !(w >= 0) || workers < 1)
    throw std::invalid_argument("noise_scale_multiplier: need B_simple >= 0, B > 0, w >= 0, n >= 1; got " +
                                progress_detail::fmt(b_simple) + ", " + progress_detail::fmt(global_batch) + ", " + progress_detail::fmt(w) + ", " +
                                std::to_string(workers));
  const double r = b_simple / global_batch;
  return (1 + (1 + w) * r + w / workers) / (1 + r);
}

}  // namespace gcu::model
