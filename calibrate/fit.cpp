// Robust linear and piecewise-linear fits on relative residuals (see fit.h).
#include "calibrate/fit.h"
#include "util/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace gcu::calibrate {
namespace {

void check_points(const std::vector<Point>& pts, const char* who) {
  if (pts.empty()) throw FitError(std::string(who) + ": no points to fit");
  for (const auto& p : pts) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || p.x < 0 || p.y <= 0) {
      std::ostringstream os;
      os << who << ": point (x=" << p.x << ", y=" << p.y
         << ") is invalid: x must be finite and >= 0, y finite and > 0";
      throw FitError(os.str());
    }
  }
}

// 0 for no samples (an empty fit has no slope or intercept to report).
double median_of(std::vector<double> v) { return v.empty() ? 0.0 : util::median(std::move(v)); }

// Weighted LS of y ~ a + b x with weights w (already including 1/y^2), unconstrained.
// Returns false when the normal matrix is singular (one distinct x).
bool solve_wls(const std::vector<Point>& pts, const std::vector<double>& w, LinearFit& out) {
  double s0 = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    s0 += w[i];
    sx += w[i] * pts[i].x;
    sxx += w[i] * pts[i].x * pts[i].x;
    sy += w[i] * pts[i].y;
    sxy += w[i] * pts[i].x * pts[i].y;
  }
  const double det = s0 * sxx - sx * sx;
  if (!(std::abs(det) > 1e-12 * std::max(1.0, s0 * sxx))) return false;
  out.slope = (s0 * sxy - sx * sy) / det;
  out.intercept = (sy - out.slope * sx) / s0;
  return true;
}

double weighted_sse(const LinearFit& f, const std::vector<Point>& pts,
                    const std::vector<double>& w) {
  double s = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double r = f(pts[i].x) - pts[i].y;
    s += w[i] * r * r;
  }
  return s;
}

}  // namespace

LinearFit least_squares_rel(const std::vector<Point>& pts, const std::vector<double>& weights) {
  check_points(pts, "least_squares_rel");
  if (!weights.empty() && weights.size() != pts.size())
    throw FitError("least_squares_rel: " + std::to_string(weights.size()) + " weights for " +
                   std::to_string(pts.size()) + " points");
  std::vector<double> w(pts.size());
  for (size_t i = 0; i < pts.size(); ++i)
    w[i] = (weights.empty() ? 1.0 : weights[i]) / (pts[i].y * pts[i].y);

  LinearFit f;
  if (solve_wls(pts, w, f) && f.intercept >= 0 && f.slope >= 0) return f;
  // Boundary candidates: slope only (intercept 0) and intercept only (slope 0).
  LinearFit a, b;
  double sxx = 0, sxy = 0, s0 = 0, sy = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    sxx += w[i] * pts[i].x * pts[i].x;
    sxy += w[i] * pts[i].x * pts[i].y;
    s0 += w[i];
    sy += w[i] * pts[i].y;
  }
  a.slope = sxx > 0 ? std::max(0.0, sxy / sxx) : 0.0;
  b.intercept = s0 > 0 ? std::max(0.0, sy / s0) : 0.0;
  return weighted_sse(a, pts, w) < weighted_sse(b, pts, w) ? a : b;
}

std::vector<double> relative_errors(const LinearFit& f, const std::vector<Point>& pts) {
  std::vector<double> r(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) r[i] = (f(pts[i].x) - pts[i].y) / pts[i].y;
  return r;
}

LinearFit huber_fit(const std::vector<Point>& pts, double huber_k, int iterations,
                    double min_scale) {
  check_points(pts, "huber_fit");
  if (!(huber_k > 0)) throw FitError("huber_fit: huber_k must be > 0, got " + std::to_string(huber_k));
  std::vector<double> w(pts.size(), 1.0);
  LinearFit f = least_squares_rel(pts, w);
  for (int it = 0; it < iterations; ++it) {
    auto r = relative_errors(f, pts);
    std::vector<double> absr(r.size());
    for (size_t i = 0; i < r.size(); ++i) absr[i] = std::abs(r[i]);
    const double scale = std::max(min_scale, 1.4826 * median_of(absr));
    const double c = huber_k * scale;
    for (size_t i = 0; i < r.size(); ++i) w[i] = absr[i] <= c ? 1.0 : c / absr[i];
    LinearFit g = least_squares_rel(pts, w);
    const double change = std::abs(g.intercept - f.intercept) + std::abs(g.slope - f.slope);
    const double size = std::abs(f.intercept) + std::abs(f.slope) + 1e-300;
    f = g;
    if (change <= 1e-10 * size) break;
  }
  return f;
}

LinearFit theil_sen(const std::vector<Point>& pts, bool nonneg) {
  check_points(pts, "theil_sen");
  std::vector<double> slopes;
  for (size_t i = 0; i < pts.size(); ++i)
    for (size_t j = i + 1; j < pts.size(); ++j)
      if (pts[j].x != pts[i].x) slopes.push_back((pts[j].y - pts[i].y) / (pts[j].x - pts[i].x));
  LinearFit f;
  f.slope = slopes.empty() ? 0.0 : median_of(slopes);
  if (nonneg) f.slope = std::max(0.0, f.slope);
  std::vector<double> icepts(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) icepts[i] = pts[i].y - f.slope * pts[i].x;
  f.intercept = median_of(icepts);
  if (nonneg) f.intercept = std::max(0.0, f.intercept);
  return f;
}

FitQuality fit_quality(const std::vector<double>& rel) {
  FitQuality q;
  q.n = rel.size();
  if (rel.empty()) return q;
  double sum_log = 0;
  std::vector<double> absr(rel.size());
  for (size_t i = 0; i < rel.size(); ++i) {
    absr[i] = std::abs(rel[i]);
    q.max_rel = std::max(q.max_rel, absr[i]);
    const double ratio = 1.0 + rel[i];
    sum_log += ratio > 0 ? std::abs(std::log(ratio)) : 50.0;  // prediction <= 0: huge error
  }
  q.geomean_rel = std::exp(sum_log / rel.size()) - 1.0;
  q.median_rel = median_of(absr);
  return q;
}

// ---- piecewise ----------------------------------------------------------------------------

double PiecewiseFit::operator()(double x) const { return segment_for(x).fit(x); }

const Segment& PiecewiseFit::segment_for(double x) const {
  if (segments.empty()) throw FitError("PiecewiseFit: no segments");
  for (size_t i = 0; i + 1 < segments.size(); ++i)
    if (x < segments[i].max_x) return segments[i];
  return segments.back();
}

std::vector<double> relative_errors(const PiecewiseFit& f, const std::vector<Point>& pts) {
  std::vector<double> r(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) r[i] = (f(pts[i].x) - pts[i].y) / pts[i].y;
  return r;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The fit of every allowed range [i, j) of the sorted points, and its cost.
struct RangeFits {
  // cost[i][j]: sum of squared log-ratios of the fit of [i, j); inf when not allowed.
  std::vector<std::vector<double>> cost;
  std::vector<std::vector<LinearFit>> fits;
};

RangeFits fit_ranges(const std::vector<Point>& pts, const PiecewiseOptions& opt) {
  const size_t n = pts.size();
  auto fit_range = [&](size_t i, size_t j) {  // points [i, j)
    std::vector<Point> sub(pts.begin() + i, pts.begin() + j);
    return opt.robust ? huber_fit(sub) : least_squares_rel(sub);
  };
  RangeFits rf;
  rf.cost.assign(n + 1, std::vector<double>(n + 1, kInf));
  rf.fits.assign(n + 1, std::vector<LinearFit>(n + 1));
  auto cut_ok = [&](size_t i) { return i == 0 || i == n || pts[i].x != pts[i - 1].x; };
  for (size_t i = 0; i < n; ++i) {
    if (!cut_ok(i)) continue;
    for (size_t j = i + std::min(opt.min_points, n); j <= n; ++j) {
      if (!cut_ok(j)) continue;
      LinearFit f = fit_range(i, j);
      double c = 0;
      for (size_t k = i; k < j; ++k) {
        const double pred = f(pts[k].x);
        // L1 on log-ratios: a descheduled call (a 10x outlier) must not decide where the
        // breakpoints go (with squares it would get a segment of its own).
        c += pred > 0 ? std::abs(std::log(pred / pts[k].y)) : 50.0;
      }
      rf.cost[i][j] = c;
      rf.fits[i][j] = f;
    }
  }
  return rf;
}

// best[k][j]: min cost of covering [0, j) with k segments; from[k][j]: start of the last.
struct Partitions {
  std::vector<std::vector<double>> best;
  std::vector<std::vector<size_t>> from;
};

Partitions best_partitions(const RangeFits& rf, size_t n, size_t kmax) {
  const auto& cost = rf.cost;
  Partitions pt;
  auto& best = pt.best;
  auto& from = pt.from;
  best.assign(kmax + 1, std::vector<double>(n + 1, kInf));
  from.assign(kmax + 1, std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  for (size_t k = 1; k <= kmax; ++k)
    for (size_t j = 1; j <= n; ++j)
      for (size_t i = 0; i < j; ++i)
        if (best[k - 1][i] < kInf && cost[i][j] < kInf && best[k - 1][i] + cost[i][j] < best[k][j]) {
          best[k][j] = best[k - 1][i] + cost[i][j];
          from[k][j] = i;
        }
  return pt;
}

// The best fit with k segments.
PiecewiseFit build_fit(const std::vector<Point>& pts, const RangeFits& rf, const Partitions& pt, size_t k) {
  const size_t n = pts.size();
  PiecewiseFit pf;
  std::vector<size_t> starts;
  for (size_t j = n, kk = k; kk > 0; --kk) {
    starts.push_back(pt.from[kk][j]);
    j = pt.from[kk][j];
  }
  std::reverse(starts.begin(), starts.end());
  for (size_t s = 0; s < starts.size(); ++s) {
    const size_t i = starts[s], j = s + 1 < starts.size() ? starts[s + 1] : n;
    Segment seg;
    seg.min_x = s == 0 ? 0.0 : pts[i].x;
    seg.max_x = j < n ? pts[j].x : pts[n - 1].x;
    seg.fit = rf.fits[i][j];
    pf.segments.push_back(seg);
  }
  return pf;
}

// The max relative error over the points at x >= opt.target_from_x.
double large_max_rel(const std::vector<Point>& pts, const PiecewiseOptions& opt, const PiecewiseFit& f) {
  double m = 0;
  for (const auto& p : pts)
    if (p.x >= opt.target_from_x) m = std::max(m, std::abs(f(p.x) - p.y) / p.y);
  return m;
}

// Segments are added while each cuts the summed |log-ratio| to < improve_factor x the
// previous, until the geometric-mean error is good enough; with a target on the large
// points' max error, also while that target is missed and the new segment lowers it.
PiecewiseFit choose_segments(const std::vector<Point>& pts, const PiecewiseOptions& opt, const RangeFits& rf,
                             const Partitions& pt, size_t kmax) {
  const size_t n = pts.size();
  const auto& best = pt.best;
  const bool targeted = opt.target_max_rel > 0;
  PiecewiseFit chosen = build_fit(pts, rf, pt, 1);
  double chosen_err = fit_quality(relative_errors(chosen, pts)).geomean_rel;
  double chosen_cost = best[1][n];
  double chosen_large = targeted ? large_max_rel(pts, opt, chosen) : 0;
  for (size_t k = 2; k <= kmax; ++k) {
    const bool target_missed = targeted && chosen_large > opt.target_max_rel;
    if (chosen_err <= opt.good_enough_rel && !target_missed) break;
    if (!(best[k][n] < kInf)) break;
    PiecewiseFit cand = build_fit(pts, rf, pt, k);
    const double cand_large = targeted ? large_max_rel(pts, opt, cand) : 0;
    const bool improves = best[k][n] < opt.improve_factor * chosen_cost;
    const bool helps_target = target_missed && cand_large < chosen_large;
    if (!improves && !helps_target) {
      if (target_missed) continue;  // the L1-best split at k may miss the large sizes; try k+1
      break;
    }
    chosen = std::move(cand);
    chosen_err = fit_quality(relative_errors(chosen, pts)).geomean_rel;
    chosen_cost = best[k][n];
    chosen_large = cand_large;
  }
  return chosen;
}

}  // namespace

PiecewiseFit fit_piecewise(std::vector<Point> pts, const PiecewiseOptions& opt) {
  check_points(pts, "fit_piecewise");
  if (opt.max_segments == 0 || opt.min_points == 0)
    throw FitError("fit_piecewise: max_segments and min_points must be >= 1");
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  const size_t n = pts.size();
  const RangeFits rf = fit_ranges(pts, opt);
  const size_t kmax = std::max<size_t>(1, std::min(opt.max_segments, n / opt.min_points));
  const Partitions pt = best_partitions(rf, n, kmax);
  if (!(pt.best[1][n] < kInf)) {  // fewer points than min_points: one plain fit
    PiecewiseFit pf;
    pf.segments.push_back({0.0, pts.back().x, opt.robust ? huber_fit(pts) : least_squares_rel(pts)});
    return pf;
  }
  return choose_segments(pts, opt, rf, pt, kmax);
}

AlphaBeta fit_alpha_beta(const std::vector<Point>& pts, double small_max_x, double large_min_x) {
  check_points(pts, "fit_alpha_beta");
  std::vector<Point> small, large;
  for (const auto& p : pts) {
    if (p.x <= small_max_x) small.push_back(p);
    if (p.x >= large_min_x) large.push_back(p);
  }
  AlphaBeta ab;
  if (small.size() < 2 || large.size() < 2) {
    const LinearFit f = huber_fit(pts);
    ab.alpha = f.intercept;
    ab.beta = f.slope;
    return ab;
  }
  ab.beta = std::max(0.0, huber_fit(large).slope);
  std::vector<double> a(small.size());
  for (size_t i = 0; i < small.size(); ++i) a[i] = small[i].y - ab.beta * small[i].x;
  ab.alpha = std::max(0.0, median_of(a));
  return ab;
}

}  // namespace gcu::calibrate
