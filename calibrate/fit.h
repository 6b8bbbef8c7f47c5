// Robust linear fits of measured cost curves: y = intercept + slope * x (e.g. collective
// time vs message bytes: intercept = alpha_s, slope = beta_s_per_byte; encode time vs
// elements: fixed_s + per_element_s * n). No LibTorch: builds and tests in seconds.
//
// Calibration data span 6-9 decades of x, so every fit here minimizes RELATIVE residuals
// (r_i = (fit(x_i) - y_i) / y_i), the quantity the goals are stated in ("fit error at most
// 5%"); an absolute least-squares fit would ignore every small message. Robust versions:
//   * huber_fit: iteratively reweighted least squares with Huber weights on relative
//     residuals (outliers beyond `huber_k` times the robust scale get weight k/|r|);
//   * theil_sen: median of pairwise slopes, then median intercept (breakdown 29%).
// fit_piecewise splits the x range into up to `max_segments` contiguous ranges, choosing
// breakpoints by dynamic programming on the summed absolute log-ratio error (robust to
// outliers), and adds segments only while they reduce it materially (docs/calibrate.md).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::calibrate {

// Thrown for inputs a fit cannot handle (too few points, non-positive y, NaN).
struct FitError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Point {
  double x = 0;  // e.g. bytes or elements (>= 0)
  double y = 0;  // e.g. seconds (> 0)
};

struct LinearFit {
  double intercept = 0;  // y at x = 0 (alpha_s, fixed_s)
  double slope = 0;      // dy/dx (beta_s_per_byte, per_element_s)
  double operator()(double x) const { return intercept + slope * x; }
};

// Weighted least squares on relative residuals (weights w_i / y_i^2). `weights` may be
// empty (all 1). Both coefficients are constrained to >= 0 (a cost has no negative fixed
// part or rate): when the unconstrained optimum violates one, the best fit on the
// boundary is returned. One point or one distinct x: slope 0.
LinearFit least_squares_rel(const std::vector<Point>& pts,
                            const std::vector<double>& weights = {});
// IRLS with Huber weights on relative residuals; `huber_k` in units of the robust scale
// (1.4826 * median |r|, floored at `min_scale`).
LinearFit huber_fit(const std::vector<Point>& pts, double huber_k = 1.345,
                    int iterations = 30, double min_scale = 0.005);
// Theil-Sen: median of pairwise slopes (weighted by nothing), then the intercept that
// makes the median relative residual zero. Slopes are clamped at >= 0 when `nonneg`.
LinearFit theil_sen(const std::vector<Point>& pts, bool nonneg = true);

// Relative error of a fit at each point: (fit(x) - y) / y.
std::vector<double> relative_errors(const LinearFit& f, const std::vector<Point>& pts);

// Summary of fit quality. geomean_rel = exp(mean |ln(fit/y)|) - 1 (the geometric mean of
// the prediction/measurement ratio's distance from 1; well-defined when a point is exact).
struct FitQuality {
  double max_rel = 0;       // max |relative error|
  double geomean_rel = 0;   // see above
  double median_rel = 0;    // median |relative error|
  size_t n = 0;
};
FitQuality fit_quality(const std::vector<double>& rel_errors);

// One size range of a piecewise fit: applies to min_x <= x < max_x (last: x <= max_x).
struct Segment {
  double min_x = 0;
  double max_x = 0;
  LinearFit fit;
};

struct PiecewiseOptions {
  size_t max_segments = 4;
  size_t min_points = 3;         // per segment
  double improve_factor = 0.7;   // a new segment must cut the summed |log ratio| below this x previous
  double good_enough_rel = 0.02; // stop adding segments once the geomean error <= this
  bool robust = true;            // huber_fit per segment (else least_squares_rel)
  // A goal on the max relative error of the points with x >= target_from_x (0 = none):
  // while it is missed, a further segment is also taken when it lowers that max error
  // (even if it cuts the summed |log-ratio| by less than improve_factor), and the
  // good_enough_rel stop does not apply. E.g. 5% from 1 MiB on for collective sweeps.
  double target_max_rel = 0;
  double target_from_x = 0;
};

struct PiecewiseFit {
  std::vector<Segment> segments;  // contiguous, sorted by x; first.min_x = 0
  double operator()(double x) const;
  const Segment& segment_for(double x) const;
};

// Points need not be sorted; equal x values are allowed (repeats).
PiecewiseFit fit_piecewise(std::vector<Point> pts, const PiecewiseOptions& opt = {});
std::vector<double> relative_errors(const PiecewiseFit& f, const std::vector<Point>& pts);

// The alpha-beta convention (docs/calibrate.md): beta from the large sizes (slope of a robust fit
// of the points with x >= large_min_x), alpha from the small sizes (median over the
// points with x <= small_max_x of y - beta * x). Falls back to one robust fit of all
// points when either side has < 2 points. Both are clamped at >= 0.
struct AlphaBeta {
  double alpha = 0;  // intercept (seconds)
  double beta = 0;   // slope (seconds per unit of x)
};
AlphaBeta fit_alpha_beta(const std::vector<Point>& pts, double small_max_x, double large_min_x);

}  // namespace gcu::calibrate
