// Relative progress model (progress_fit.h). Derivations and thresholds: docs/model.md §4.2.
#include "convergence/progress_fit.h"
#include "convergence/progress_status.h"
#include "util/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

namespace gcu::model {
namespace {

using progress_detail::fmt;
using progress_detail::decide_status;
using progress_detail::cross_check_noise_scale;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kZ80 = 1.2816;  // the normal quantile of a central 80% interval

// Decision thresholds (hyperparameters of the status rule; docs/model.md §4.2).
constexpr double kMaxCrossing = 0.5;     // crossing-noise half-width cap, fraction of the estimate
constexpr double kModelTie = 2.0;        // holdout rmse ratio under which both models count


// NaN for no samples (no bootstrap draw reached the target).
double quantile(std::vector<double> v, double q) { return v.empty() ? kNan : util::quantile(std::move(v), q); }

// Weighted least squares of y = a + b x with b >= 0 and a >= 0; returns weighted SSE.
double line_fit(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w, double& a,
                double& b) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sw += w[i], sx += w[i] * x[i], sy += w[i] * y[i], sxx += w[i] * x[i] * x[i], sxy += w[i] * x[i] * y[i];
  }
  const double den = sw * sxx - sx * sx;
  b = den > 0 ? (sw * sxy - sx * sy) / den : 0;
  a = (sy - b * sx) / sw;
  if (b < 0) b = 0, a = sy / sw;
  if (a < 0) a = 0, b = sxx > 0 ? std::max(0.0, sxy / sxx) : 0;
  double sse = 0;
  for (size_t i = 0; i < x.size(); ++i) sse += w[i] * std::pow(y[i] - a - b * x[i], 2);
  return sse;
}

// Golden-section refinement of a 1-D objective around the best of a grid.
template <class F>
double minimise(const std::vector<double>& grid, F f, double* best_val) {
  size_t bi = 0;
  double bv = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < grid.size(); ++i) {
    const double v = f(grid[i]);
    if (v < bv) bv = v, bi = i;
  }
  double lo = grid[bi > 0 ? bi - 1 : 0], hi = grid[std::min(bi + 1, grid.size() - 1)];
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
  for (int k = 0; k < 40; ++k) {
    if (f1 < f2) hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = f(x1);
    else lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = f(x2);
  }
  const double xm = f1 < f2 ? x1 : x2, vm = std::min(f1, f2);
  if (vm < bv) {
    if (best_val) *best_val = vm;
    return xm;
  }
  if (best_val) *best_val = bv;
  return grid[bi];
}

struct Window {
  std::vector<double> t, y;
};
Window window(const LossCurve& s, double t_from, double t_to) {
  Window w;
  for (size_t i = 0; i < s.t.size(); ++i)
    if (s.t[i] >= t_from && s.t[i] <= t_to && std::isfinite(s.loss[i])) w.t.push_back(s.t[i]), w.y.push_back(s.loss[i]);
  return w;
}

// Index split: first ceil(2n/3) evaluations fit, the rest hold out.
double split_time(const LossCurve& s) {
  const size_t n = s.t.size();
  const size_t k = (2 * n + 2) / 3;
  return k >= n ? s.t.back() : (s.t[k - 1] + s.t[k]) / 2;
}

double rmse(const ReferenceCurve& l0, const LossCurve& s, double t_from, double t_to, ProgressBasis b, double v) {
  const Window w = window(s, t_from, t_to);
  if (w.t.empty()) return 0;
  double e = 0;
  for (size_t i = 0; i < w.t.size(); ++i) {
    const double p = b == ProgressBasis::Multiplier ? l0(w.t[i] / v) : l0(w.t[i] - v);
    e += (w.y[i] - p) * (w.y[i] - p);
  }
  return std::sqrt(e / w.t.size());
}

// Time L_0 reaches the target: on the points, else on the shifted tail.
std::optional<double> reference_time_to(const ReferenceCurve& l0, double target) {
  if (auto x = first_crossing(l0.points(), target)) return x;
  const PowerLaw& f = l0.tail();
  if (!f.ok) return std::nullopt;
  const double shift = l0(l0.points().t.back()) - power_law_value(f, l0.points().t.back());
  auto x = power_law_time_to(f, target - shift);
  if (x && *x < l0.points().t.back()) return std::nullopt;
  return x;
}

bool diverged(const LossCurve& c) {
  bool bad = false;
  for (double v : c.loss) bad |= !std::isfinite(v);
  return bad || (c.loss.size() >= 2 && c.loss.back() > c.loss.front());
}

// The curve's own power law, fitted past its initial transient (t >= kSkip x the last
// evaluation) and, for a curve that lags (tau > 0), in its own time t - tau.
constexpr double kSkip = 0.2;
PowerLaw fit_positive(const LossCurve& c, double lag = 0) {
  std::vector<double> t, y;
  const double from = std::max(lag, kSkip * c.t.back());
  for (size_t i = 0; i < c.t.size(); ++i)
    if (c.t[i] > 0 && c.t[i] >= from && std::isfinite(c.loss[i])) t.push_back(c.t[i] - lag), y.push_back(c.loss[i]);
  return fit_power_law(t, y);
}

}  // namespace

PowerLaw fit_power_law(const std::vector<double>& t, const std::vector<double>& y) {
  PowerLaw best;
  if (t.size() != y.size() || t.size() < 4) return best;
  const double tmax = *std::max_element(t.begin(), t.end());
  const double tmin = std::max(1e-9, *std::min_element(t.begin(), t.end()));
  std::vector<double> w(t.size(), 1.0), x(t.size());
  for (int round = 0; round < 3; ++round) {  // Huber reweighting (k = 1.345 MAD-sigma)
    double best_sse = std::numeric_limits<double>::infinity();
    PowerLaw cur;
    for (int ic = 0; ic <= 40; ++ic) {
      const double c = 0.05 * std::pow(3.0 / 0.05, ic / 40.0);
      for (int it = 0; it <= 24; ++it) {
        const double t0 = it == 0 ? 0 : tmin * 0.05 * std::pow(20 * tmax / (tmin * 0.05), (it - 1) / 23.0);
        for (size_t i = 0; i < t.size(); ++i) x[i] = std::pow(t[i] + t0 + 1e-12, -c);
        double a = 0, b = 0;
        const double sse = line_fit(x, y, w, a, b);
        if (sse < best_sse) best_sse = sse, cur = {a, b, c, t0, 0, true};
      }
    }
    std::vector<double> r(t.size());
    for (size_t i = 0; i < t.size(); ++i) r[i] = std::fabs(y[i] - power_law_value(cur, t[i]));
    std::vector<double> rs = r;
    const double mad = quantile(rs, 0.5) * 1.4826;
    double e = 0;
    for (double v : r) e += v * v;
    cur.rmse = std::sqrt(e / r.size());
    best = cur;
    if (!(mad > 0)) break;
    const double k = 1.345 * mad;
    for (size_t i = 0; i < t.size(); ++i) w[i] = r[i] <= k ? 1.0 : k / r[i];
  }
  return best;
}

double power_law_value(const PowerLaw& f, double t) { return f.a + f.b * std::pow(std::max(0.0, t) + f.t0 + 1e-12, -f.c); }

std::optional<double> power_law_time_to(const PowerLaw& f, double target) {
  if (!(target > f.a) || !(f.b > 0)) return std::nullopt;
  const double x = std::pow((target - f.a) / f.b, -1.0 / f.c) - f.t0;
  return std::max(0.0, x);
}

std::optional<double> first_crossing(const LossCurve& c, double target) {
  for (size_t i = 0; i < c.t.size(); ++i) {
    if (!std::isfinite(c.loss[i])) return std::nullopt;
    if (c.loss[i] <= target) {
      if (i == 0) return c.t[0];
      const double l0 = c.loss[i - 1], l1 = c.loss[i];
      const double f = l0 > l1 ? (l0 - target) / (l0 - l1) : 1.0;
      return c.t[i - 1] + f * (c.t[i] - c.t[i - 1]);
    }
  }
  return std::nullopt;
}

LossCurve mean_curve(const std::vector<LossCurve>& seeds) {
  if (seeds.empty()) throw std::invalid_argument("mean_curve: no curves");
  LossCurve m = seeds.front();
  for (size_t s = 1; s < seeds.size(); ++s) {
    if (seeds[s].t != m.t) throw std::invalid_argument("mean_curve: curves evaluated at different iterations");
    for (size_t i = 0; i < m.loss.size(); ++i) m.loss[i] += seeds[s].loss[i];
  }
  for (double& v : m.loss) v /= seeds.size();
  return m;
}

ReferenceCurve::ReferenceCurve(LossCurve mean) : c_(std::move(mean)) {
  if (c_.t.empty() || c_.t.size() != c_.loss.size())
    throw std::invalid_argument("ReferenceCurve: empty curve or t/loss sizes differ");
  tail_ = fit_positive(c_);
  if (tail_.ok) shift_ = c_.loss.back() - power_law_value(tail_, c_.t.back());
}

double ReferenceCurve::operator()(double t) const {
  if (t <= c_.t.front()) return c_.loss.front();
  if (t >= c_.t.back()) return tail_.ok ? power_law_value(tail_, t) + shift_ : c_.loss.back();
  const size_t i = std::upper_bound(c_.t.begin(), c_.t.end(), t) - c_.t.begin();
  const double f = (t - c_.t[i - 1]) / (c_.t[i] - c_.t[i - 1]);
  return c_.loss[i - 1] + f * (c_.loss[i] - c_.loss[i - 1]);
}

const char* progress_basis_name(ProgressBasis b) { return b == ProgressBasis::Multiplier ? "pilot-multiplier" : "pilot-lag"; }
const char* pilot_status_name(PilotStatus s) {
  return s == PilotStatus::Reaches ? "reaches" : s == PilotStatus::Never ? "never" : "uncertain";
}

double fit_multiplier(const ReferenceCurve& l0, const LossCurve& s, double t_from, double t_to, double* sse) {
  const Window w = window(s, t_from, t_to);
  std::vector<double> grid;
  for (int i = 0; i <= 300; ++i) grid.push_back(std::log(0.125) + i * (std::log(1000.0) - std::log(0.125)) / 300);
  auto f = [&](double lr) {
    const double rho = std::exp(lr);
    double e = 0;
    for (size_t i = 0; i < w.t.size(); ++i) e += std::pow(w.y[i] - l0(w.t[i] / rho), 2);
    return e;
  };
  return std::exp(minimise(grid, f, sse));
}

double fit_lag(const ReferenceCurve& l0, const LossCurve& s, double t_from, double t_to, double* sse) {
  const Window w = window(s, t_from, t_to);
  const double T = s.t.empty() ? 1 : std::max(1.0, s.t.back());
  std::vector<double> grid;
  for (int i = 0; i <= 100; ++i) grid.push_back(-T + i * T / 100);
  for (int i = 0; i <= 300; ++i) grid.push_back(T * 1e-3 * std::pow(1e5, i / 300.0));
  auto f = [&](double tau) {
    double e = 0;
    for (size_t i = 0; i < w.t.size(); ++i) e += std::pow(w.y[i] - l0(w.t[i] - tau), 2);
    return e;
  };
  return minimise(grid, f, sse);
}

RelativeFit fit_relative(const ReferenceCurve& l0, const LossCurve& s) {
  RelativeFit r;
  if (s.t.empty()) throw std::invalid_argument("fit_relative: empty scheme curve");
  const double split = split_time(s), t0 = s.t.front(), t1 = s.t.back();
  const double rho2 = fit_multiplier(l0, s, t0, split), tau2 = fit_lag(l0, s, t0, split);
  r.holdout_rmse_multiplier = rmse(l0, s, split, t1, ProgressBasis::Multiplier, rho2);
  r.holdout_rmse_lag = rmse(l0, s, split, t1, ProgressBasis::Lag, tau2);
  r.basis = r.holdout_rmse_lag < r.holdout_rmse_multiplier ? ProgressBasis::Lag : ProgressBasis::Multiplier;
  r.rho = fit_multiplier(l0, s, t0, t1);
  r.tau = fit_lag(l0, s, t0, t1);
  return r;
}


namespace {

// One replicate: the point prediction for resampled seeds (all of them at the top level).
struct Replicate {
  RelativeFit fit;
  std::optional<double> t0;           // T_0
  std::optional<double> iterations;   // predicted
  std::optional<double> other;        // the model not chosen (model uncertainty)
  bool plateau = false;               // scheme asymptote above target, baseline's below
  bool plateau_usable = false;        // the baseline's own asymptote is below the target
  double asymptote = kNan;
};

Replicate replicate(const std::vector<LossCurve>& base, const std::vector<LossCurve>& sch,
                    const std::vector<size_t>& idx, const ProgressOptions& o) {
  std::vector<LossCurve> b, s;
  for (size_t i : idx) b.push_back(base[i]), s.push_back(sch[i]);
  const ReferenceCurve l0(mean_curve(b));
  const LossCurve ms = mean_curve(s);
  Replicate r;
  r.fit = fit_relative(l0, ms);
  r.t0 = o.baseline_iterations ? o.baseline_iterations : reference_time_to(l0, o.target);
  if (r.t0) {
    const double vm = r.fit.rho * *r.t0, vl = *r.t0 + r.fit.tau;
    const bool mult = r.fit.basis == ProgressBasis::Multiplier;
    r.iterations = std::max(0.0, mult ? vm : vl);
    r.other = std::max(0.0, mult ? vl : vm);
  }
  const PowerLaw ps = fit_positive(ms, std::max(0.0, r.fit.tau));
  if (ps.ok) r.asymptote = ps.a;
  r.plateau_usable = l0.tail().ok && l0.tail().a < o.target;
  r.plateau = r.plateau_usable && ps.ok && ps.a > o.target;
  return r;
}

// Divergence: a NaN/inf or a final loss above the initial one in most seeds. When so, p
// says never (with the evidence) and the answer is true.
bool diverged_majority(const std::vector<LossCurve>& sch, ProgressPrediction& p) {
  const size_t n = sch.size();
  size_t div = 0;
  for (const auto& c : sch) div += diverged(c);
  if (2 * div <= n) return false;
  p.status = PilotStatus::Never;
  p.evidence.push_back("divergence: " + std::to_string(div) + " of " + std::to_string(n) +
                       " seeds hit NaN/inf or ended above their initial loss");
  return true;
}

// The point prediction's fit (all seeds) into p.
void take_point_fit(ProgressPrediction& p, const Replicate& top, const ProgressOptions& o) {
  p.basis = top.fit.basis;
  p.rho = top.fit.rho, p.tau = top.fit.tau;
  p.holdout_rmse_multiplier = top.fit.holdout_rmse_multiplier;
  p.holdout_rmse_lag = top.fit.holdout_rmse_lag;
  p.baseline_extrapolated = !o.baseline_iterations.has_value();
  p.baseline_iterations = top.t0.value_or(kNan);
  if (std::isfinite(top.asymptote)) p.asymptote = top.asymptote;
}

// Tallies of the bootstrap over seeds.
struct Bootstrap {
  std::vector<double> its;  // predicted iterations of the replicates that reach below the cap
  int reach = 0, plateau = 0, usable = 0;
  int replicates = 1;
};

// Bootstrap over seeds (paired), each replicate refitting both models and choosing.
Bootstrap bootstrap(const std::vector<LossCurve>& base, const std::vector<LossCurve>& sch,
                    const ProgressOptions& o) {
  const size_t n = sch.size();
  Bootstrap bs;
  std::mt19937_64 rng(o.seed);
  bs.replicates = std::max(1, o.bootstrap);
  std::map<std::vector<size_t>, Replicate> memo;  // few seeds: few distinct resamples
  for (int k = 0; k < bs.replicates; ++k) {
    std::vector<size_t> idx(n);
    for (auto& i : idx) i = rng() % n;
    std::sort(idx.begin(), idx.end());
    auto m = memo.find(idx);
    if (m == memo.end()) m = memo.emplace(idx, replicate(base, sch, idx, o)).first;
    const Replicate& r = m->second;
    bs.plateau += r.plateau, bs.usable += r.plateau_usable;
    if (r.iterations && r.t0 && *r.iterations <= o.max_multiplier * *r.t0) {
      ++bs.reach;
      bs.its.push_back(*r.iterations);
      // Model uncertainty: when the other model predicts the last third about as well
      // (rmse within kModelTie x), its prediction is a replicate too.
      const double a = r.fit.holdout_rmse_multiplier, b = r.fit.holdout_rmse_lag;
      if (r.other && std::max(a, b) <= kModelTie * std::min(a, b) + 1e-12) bs.its.push_back(*r.other);
    }
  }
  return bs;
}

// sigma_L: the seed-to-seed spread of the loss on the pilot's second half.
double seed_spread(const LossCurve& ms, const std::vector<LossCurve>& sch) {
  const size_t n = sch.size();
  double ss = 0;
  long k = 0;
  for (size_t i = ms.t.size() / 2; i < ms.t.size(); ++i)
    for (const auto& c : sch)
      if (std::isfinite(c.loss[i]) && std::isfinite(ms.loss[i])) ss += std::pow(c.loss[i] - ms.loss[i], 2), ++k;
  return k ? std::sqrt(ss / k * n / (n - 1.0)) : 0;
}

// Standard error of the seed-mean at the last evaluation (0 with one seed).
double last_sem(const std::vector<LossCurve>& sch) {
  const size_t n = sch.size();
  if (n < 2) return 0;
  double m = 0, ss = 0;
  for (const auto& c : sch) m += c.loss.back() / n;
  for (const auto& c : sch) ss += std::pow(c.loss.back() - m, 2);
  const double v = std::sqrt(ss / (n - 1) / n);
  return std::isfinite(v) ? v : 0;
}

// Crossing noise: the measured iterations-to-target is the mean over n seeds of where
// noisy curves cross the target, so it scatters by sigma_L / |L_s'(T)| / sqrt(n)
// (sigma_L: seed-to-seed spread on the pilot's second half; L_s'(T) = L_0'(T_0)/rho for
// the multiplier model, L_0'(T_0) for the lag). Added in quadrature to the bootstrap's
// half-widths (z = 1.2816 for 80%).
void add_crossing_noise(ProgressPrediction& p, const std::vector<LossCurve>& sch, const ReferenceCurve& l0,
                        const LossCurve& ms, double t0, const ProgressOptions& o) {
  const size_t n = sch.size();
  if (!(p.lo && p.hi && n > 1)) return;
  const double sigma_l = seed_spread(ms, sch);
  // Slope at T_0 of the baseline's power law made to pass through (T_0, target):
  // c (target - a) / (T_0 + t0); the crossing noise is capped at kMaxCrossing x T.
  const PowerLaw& f = l0.tail();
  // When the fitted asymptote is not below the target (short pilots), the same law
  // without an asymptote: c target / T_0.
  double slope = !f.ok ? 0 : o.target > f.a ? f.c * (o.target - f.a) / (t0 + f.t0) : f.c * o.target / t0;
  if (p.basis == ProgressBasis::Multiplier) slope /= std::max(1e-9, p.rho);
  if (slope > 0 && sigma_l > 0) {
    const double st = std::min(kMaxCrossing * *p.iterations, kZ80 * sigma_l / slope / std::sqrt(double(n)));
    p.crossing_noise = st / kZ80;
    p.lo = std::max(0.0, *p.iterations - std::hypot(*p.iterations - *p.lo, st));
    p.hi = *p.iterations + std::hypot(*p.hi - *p.iterations, st);
  }
}

// Log half-widths `lo_term` below and `hi_term` above the estimate joined in quadrature
// with the interval's own (log) half-widths; a lower end at 0 stays there.
void widen_log_interval(ProgressPrediction& p, double lo_term, double hi_term) {
  const double x = *p.iterations;
  const double a = *p.lo > 0 ? std::log(x / *p.lo) : std::numeric_limits<double>::infinity();
  p.lo = std::isfinite(a) ? x * std::exp(-std::hypot(a, lo_term)) : *p.lo;
  p.hi = x * std::exp(std::hypot(std::log(*p.hi / x), hi_term));
}

// Extrapolation term (ProgressOptions): log half-widths s_lo, s_hi = sigma x ln(T_0 / P).
void add_extrapolation(ProgressPrediction& p, double pilot_end, double t0, const ProgressOptions& o) {
  if (!(p.lo && p.hi && p.iterations && *p.iterations > 0 && pilot_end > 0 && t0 > pilot_end)) return;
  if (o.negligible_error) return;
  const double len = std::log(t0 / pilot_end);
  p.extrapolation_lo = std::max(0.0, o.extrapolation_sigma_lo) * len;
  p.extrapolation_hi = std::max(0.0, o.extrapolation_sigma_hi) * len;
  widen_log_interval(p, p.extrapolation_lo, p.extrapolation_hi);
}

// One-seed term (ProgressOptions::seed_log_sigma): z x sigma on both sides.
void add_seed_term(ProgressPrediction& p, size_t seeds, const ProgressOptions& o) {
  if (!(seeds == 1 && o.seed_log_sigma && *o.seed_log_sigma > 0 && p.lo && p.hi && p.iterations && *p.iterations > 0))
    return;
  p.seed_term = kZ80 * *o.seed_log_sigma;
  widen_log_interval(p, p.seed_term, p.seed_term);
  p.evidence.push_back("one seed: interval widened by the baseline's seed-to-seed spread (log half-width " +
                       fmt(p.seed_term) + ")");
}

}  // namespace

double baseline_seed_log_spread(const std::vector<LossCurve>& base) {
  double ss = 0;
  int k = 0;
  for (size_t i = 0; i < base.size() && base.size() >= 2; ++i) {
    std::vector<LossCurve> others;
    for (size_t j = 0; j < base.size(); ++j)
      if (j != i) others.push_back(base[j]);
    const LossCurve& c = base[i];
    if (c.t.size() < 2 || diverged(c)) continue;
    const LossCurve m = mean_curve(others);
    bool finite = true;
    for (double v : m.loss) finite = finite && std::isfinite(v);
    if (!finite) continue;
    const double r = std::log(fit_multiplier(ReferenceCurve(m), c, c.t.front(), c.t.back()));
    if (std::isfinite(r)) ss += r * r, ++k;
  }
  return k >= 2 ? std::sqrt(ss / k) : kNan;
}

ProgressPrediction predict_progress(const std::vector<LossCurve>& base, const std::vector<LossCurve>& sch,
                                    const ProgressOptions& o) {
  if (base.empty() || base.size() != sch.size())
    throw std::invalid_argument("predict_progress: need the same number (>= 1) of baseline and scheme seeds, got " +
                                std::to_string(base.size()) + " and " + std::to_string(sch.size()));
  ProgressPrediction p;
  const size_t n = sch.size();
  if (diverged_majority(sch, p)) return p;
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  const Replicate top = replicate(base, sch, all, o);
  take_point_fit(p, top, o);
  if (!top.t0) {
    p.status = PilotStatus::Uncertain;
    p.evidence.push_back("the baseline's extrapolated curve does not reach the target (asymptote " +
                         fmt(ReferenceCurve(mean_curve(base)).tail().a) + "): no T_0");
    return p;
  }
  p.iterations = top.iterations;
  p.multiplier = *top.iterations / *top.t0;
  const Bootstrap bs = bootstrap(base, sch, o);
  p.reach_fraction = double(bs.reach) / bs.replicates;
  const double q = (1 - o.interval) / 2;
  if (!bs.its.empty())
    p.lo = std::min(quantile(bs.its, q), *p.iterations), p.hi = std::max(quantile(bs.its, 1 - q), *p.iterations);
  const ReferenceCurve l0(mean_curve(base));
  const LossCurve ms = mean_curve(sch);
  add_crossing_noise(p, sch, l0, ms, *top.t0, o);
  add_extrapolation(p, ms.t.empty() ? 0 : ms.t.back(), *top.t0, o);
  add_seed_term(p, n, o);
  const double plateau_frac = bs.usable ? double(bs.plateau) / bs.replicates : 0;
  decide_status(p, l0, ms, last_sem(sch), top.asymptote, plateau_frac, o);
  cross_check_noise_scale(p, *top.t0, o);
  if (p.status == PilotStatus::Never) p.iterations.reset(), p.lo.reset(), p.hi.reset();
  return p;
}

}  // namespace gcu::model
