// A continuous cost curve (torch-free): y = intercept + sum_k slope_k x (the part of x
// inside range k), the ranges [edges[k], edges[k+1]) from edges[0] = 0, the last one
// without an upper bound. With the intercept and every slope >= 0 the curve is continuous
// and never falls as x grows: a message's cost at the range edges has no jumps, and a
// larger message never costs less. Fitted by non-negative least squares on relative
// residuals (the quantity the fit goals are stated in, as fit.h), reweighted with Huber
// weights against outliers. What gcu calibrate writes for each collective
// (model::LinkLevel::curves): the intercept is the collective's latency, the slopes its
// per-byte times.
#pragma once

#include "calibrate/fit.h"

#include <vector>

namespace gcu::calibrate {

struct CurveFit {
  double intercept = 0;
  std::vector<double> edges;   // edges[0] = 0, increasing; range k is [edges[k], edges[k+1])
  std::vector<double> slopes;  // one per range, >= 0
  double operator()(double x) const;
};

// Non-negative least squares, min |A x - b| with x >= 0 (Lawson-Hanson active set), for
// the few unknowns of a curve. A is rows x cols, row-major. Throws FitError for sizes
// that do not match or values that are not finite.
std::vector<double> nnls(const std::vector<double>& a_row_major, size_t rows, size_t cols, const std::vector<double>& b);

// The curve through `pts` with the given range edges (edges[0] must be 0; increasing).
// Throws FitError for fewer points than unknowns, a non-positive or non-finite y, or bad
// edges.
CurveFit fit_curve(const std::vector<Point>& pts, const std::vector<double>& edges, double huber_k = 1.345,
                   int iterations = 10, double min_scale = 0.005);

std::vector<double> relative_errors(const CurveFit& f, const std::vector<Point>& pts);

}  // namespace gcu::calibrate
