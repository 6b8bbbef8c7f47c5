// Relative progress model: iterations-to-target of a compressed scheme predicted from
// short paired pilot runs against the uncompressed baseline (docs/model.md §4.2, note
// "relative progress"). Pure: no LibTorch, no I/O; calibrate's pilot step and the
// validation script call it.
//
// Inputs are held-out curves, one per seed, of a metric that DECREASES with training
// (held-out loss, log-perplexity, or 1 - accuracy), evaluated at the same iterations for
// the baseline and the scheme (paired runs: same seeds, data order and schedule).
// - Baseline reference L_0(t): the seed-mean curve, linear between evaluations, and
//   beyond the last one the learning-curve family L(t) = a + b (t + t0)^-c (a power law
//   with an asymptote; Hestness et al. 2017, Domhan et al. 2015) fitted robustly
//   (grid over c, t0; a, b by weighted least squares with b >= 0; Huber reweighting),
//   shifted to join the last evaluation continuously.
// - Two relative models of the scheme's seed-mean curve L_s(t):
//     multiplier  L_s(t) ~ L_0(t / rho)    (unbiased noise: rho = extra iterations factor)
//     lag         L_s(t) ~ L_0(t - tau)    (error feedback: a delay; Stich & Karimireddy)
//   each fitted by least squares on the pilot's first two thirds; the one that predicts
//   the last third better is chosen (then refitted on the whole pilot).
// - Iterations to target: rho T_0 or T_0 + tau; T_0 is the baseline's measured
//   iterations, or else the time its extrapolated curve reaches the target.
// - Status: `never` with evidence (divergence, a plateau above the target from the
//   scheme's own power-law asymptote, a rising local rho, a multiplier above the cap),
//   `reaches` with an interval (bootstrap over seeds, both fits redone per replicate), or
//   `uncertain` when the replicates disagree or neither model predicts the last third.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gcu::model {

// One seed's evaluations: metric `loss` (decreasing) at iterations `t` (ascending).
struct LossCurve {
  std::vector<double> t;
  std::vector<double> loss;
};

// L(t) = a + b (t + t0)^-c with b >= 0, c > 0, t0 >= 0.
struct PowerLaw {
  double a = 0, b = 0, c = 1, t0 = 1;
  double rmse = 0;  // on the points it was fitted to
  bool ok = false;  // false: too few points (< 4) or no finite fit
};
PowerLaw fit_power_law(const std::vector<double>& t, const std::vector<double>& y);
double power_law_value(const PowerLaw& f, double t);
// Smallest t >= 0 with L(t) <= target; absent when target <= a (never, per the fit).
std::optional<double> power_law_time_to(const PowerLaw& f, double target);

// Iteration at which a curve first reaches `target` (linear between evaluations);
// absent when it does not within the curve.
std::optional<double> first_crossing(const LossCurve& c, double target);

// The seed-mean curve (curves must share t); non-finite values propagate.
LossCurve mean_curve(const std::vector<LossCurve>& seeds);

// L_0(t) for any t >= 0: see the file comment.
class ReferenceCurve {
 public:
  explicit ReferenceCurve(LossCurve mean);
  double operator()(double t) const;
  const PowerLaw& tail() const { return tail_; }
  const LossCurve& points() const { return c_; }
 private:
  LossCurve c_;
  PowerLaw tail_;
  double shift_ = 0;
};

enum class ProgressBasis { Multiplier, Lag };
const char* progress_basis_name(ProgressBasis b);  // "pilot-multiplier", "pilot-lag"

// Least-squares rho (in [1/8, 1000]) and tau (in [-t_last, 100 t_last]) of curve s
// against L_0 over s's points with t in [t_from, t_to]; sse out-parameters optional.
double fit_multiplier(const ReferenceCurve& l0, const LossCurve& s, double t_from, double t_to,
                      double* sse = nullptr);
double fit_lag(const ReferenceCurve& l0, const LossCurve& s, double t_from, double t_to, double* sse = nullptr);

struct RelativeFit {
  ProgressBasis basis = ProgressBasis::Multiplier;
  double rho = 1, tau = 0;                // refitted on the whole pilot
  double holdout_rmse_multiplier = 0;     // fit on the first 2/3, error on the last 1/3
  double holdout_rmse_lag = 0;
};
RelativeFit fit_relative(const ReferenceCurve& l0, const LossCurve& s);

enum class PilotStatus { Reaches, Never, Uncertain };
const char* pilot_status_name(PilotStatus s);  // "reaches", "never", "uncertain"

// The extrapolation term's default coefficients (ProgressOptions, docs/validation-tta.md).
inline constexpr double kExtrapolationSigmaLo = 0.05, kExtrapolationSigmaHi = 0.13;

struct ProgressOptions {
  double target = 0;                           // the metric's target value
  std::optional<double> baseline_iterations;   // measured T_0; absent: extrapolated
  int bootstrap = 200;                         // replicates (seeds resampled, paired)
  uint64_t seed = 1;
  double interval = 0.8;                       // central interval mass
  double max_multiplier = 100;                 // iterations above this x T_0: never
  // Noise-scale cross-check (unbiased schemes only; all set to enable): see
  // noise_scale_multiplier().
  std::optional<double> b_simple;              // tr(Sigma)/|G|^2, samples
  double global_batch = 0;                     // B, samples per iteration
  int workers = 0;                             // n
  std::optional<double> variance_w;            // E||C(g)-g||^2 / ||g||^2
  // Extrapolation term of the interval (docs/model.md §4.2): the pilot sees only the
  // start of training, and schemes drift from their pilot multiplier later (mostly
  // slower). For a scheme that changes the gradient (not negligible_error), the
  // interval's log half-widths get sigma_lo/hi x ln(T_0 / pilot end) added in
  // quadrature. Fitted on the recorded TTA validations, leave-one-task-out.
  // negligible_error: the registry says the scheme does not change convergence (lossless,
  // or a 16-bit cast: compress::SchemeFacts). A fact of the scheme, not a measured figure:
  // PowerSGD's measured relative error falls below 1% in some pilots and rises later.
  bool negligible_error = false;
  double extrapolation_sigma_lo = kExtrapolationSigmaLo;  // per unit ln(T_0 / pilot end)
  double extrapolation_sigma_hi = kExtrapolationSigmaHi;
  // A biased scheme without error feedback (top-k, sign, PowerSGD, ... as registered;
  // compress::SchemeTraits): its iterates need not approach the baseline's loss at all
  // (Karimireddy et al. 2019: signSGD and top-k without error feedback can stall or
  // diverge), so a pilot that has not itself reached the target cannot show that it will:
  // a `reaches` becomes `uncertain` (negligible_error schemes exempt).
  bool biased_without_feedback = false;
  // One-seed term (the sequential design, docs/model.md §4.2): a scheme piloted with one
  // seed has no seed-to-seed spread for the bootstrap to resample, so its interval's log
  // half-widths get z x seed_log_sigma added in quadrature; pilot_predict takes it from
  // the baseline's own seeds (baseline_seed_log_spread). Absent or with >= 2 seeds: none.
  std::optional<double> seed_log_sigma;
};

struct ProgressPrediction {
  PilotStatus status = PilotStatus::Uncertain;
  ProgressBasis basis = ProgressBasis::Multiplier;
  double rho = 1, tau = 0;
  double holdout_rmse_multiplier = 0, holdout_rmse_lag = 0;
  double baseline_iterations = 0;         // T_0 used (nan when it cannot be had)
  bool baseline_extrapolated = false;
  std::optional<double> iterations;       // point estimate (reaches; uncertain when finite)
  std::optional<double> lo, hi;           // the interval
  double multiplier = 1;                  // iterations / T_0
  double reach_fraction = 0;              // bootstrap replicates that reach below the cap
  std::optional<double> crossing_noise;   // sigma of the measured seed-mean crossing, iterations
  std::optional<double> asymptote;        // the scheme's fitted a (its own power law)
  std::optional<double> noise_scale_multiplier;
  bool widened = false;                   // interval widened by the cross-check
  double extrapolation_lo = 0, extrapolation_hi = 0;  // log half-widths of the extrapolation term
  double seed_term = 0;                   // log half-width of the one-seed term (0: none)
  // More seeds cannot make this scheme a confident `reaches`, so the sequential design
  // does not run them: the biased-scheme rule caps it (biased without error feedback,
  // its pilot above the target), or the noise-scale cross-check made it uncertain (a
  // theory figure that seeds do not move).
  bool seeds_cannot_settle = false;
  std::vector<std::string> evidence;      // why never/uncertain; notes
};

ProgressPrediction predict_progress(const std::vector<LossCurve>& baseline, const std::vector<LossCurve>& scheme,
                                    const ProgressOptions& opt);

// The seed-to-seed spread of a multiplier fitted from one seed, measured on the baseline's
// own seeds (>= 2, evaluated at the same iterations): the RMS over seeds i of ln rho_i,
// rho_i fitted of seed i's curve against the mean of the other seeds (whose true rho is
// 1). NaN with fewer than 2 usable seeds.
double baseline_seed_log_spread(const std::vector<LossCurve>& baseline);

// McCandlish et al. 2018 with an unbiased compressor of variance factor w on each of n
// workers' gradients (per-worker batch B/n): the gradient noise tr(Sigma)/B becomes
// (1+w) tr(Sigma)/B + w|G|^2/n, so steps ~ 1 + B_noise/B give
//   M = [1 + (1+w) B_simple/B + w/n] / (1 + B_simple/B).
double noise_scale_multiplier(double b_simple, double global_batch, double w, int workers);

}  // namespace gcu::model
