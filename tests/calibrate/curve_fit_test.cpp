// calibrate/curve_fit.h: non-negative least squares by hand, a continuous curve recovered
// from its own points, never falling where the points dip, and bad input refused.
#include "calibrate/curve_fit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::calibrate {
namespace {

TEST(CurveFit, NnlsByHand) {
  // Unconstrained: x = (1, 2) solves it exactly.
  const std::vector<double> a = {1, 0, 0, 1, 1, 1};
  std::vector<double> x = nnls(a, 3, 2, {1, 2, 3});
  EXPECT_NEAR(x[0], 1, 1e-12);
  EXPECT_NEAR(x[1], 2, 1e-12);
  // The unconstrained optimum (-1, 2) is infeasible: x1 = 0, x2 the 1-D least squares.
  x = nnls(a, 3, 2, {-1, 2, 1});
  EXPECT_EQ(x[0], 0);
  EXPECT_NEAR(x[1], 1.5, 1e-12);  // min (2 - x)^2 + (1 - x)^2
  EXPECT_THROW(nnls(a, 2, 2, {1, 2}), FitError);
  EXPECT_THROW(nnls({1, NAN}, 1, 2, {1}), FitError);
}

TEST(CurveFit, RecoversACurveFromItsPoints) {
  CurveFit truth;
  truth.intercept = 50e-6;
  truth.edges = {0, 65536, 1 << 20};
  truth.slopes = {2e-9, 0.5e-9, 1e-9};
  std::vector<Point> pts;
  for (double x = 4; x <= 64e6; x *= 2) pts.push_back({x, truth(x)});
  const CurveFit f = fit_curve(pts, truth.edges);
  EXPECT_NEAR(f.intercept, truth.intercept, 1e-9);
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(f.slopes[k], truth.slopes[k], 1e-12) << k;
  // Continuous at the edges, and the value by hand in the last range.
  EXPECT_NEAR(f(65536 - 1e-6), f(65536), 1e-12);
  EXPECT_NEAR(f(2e6), 50e-6 + 2e-9 * 65536 + 0.5e-9 * (1048576 - 65536) + 1e-9 * (2e6 - 1048576), 1e-12);
}

TEST(CurveFit, NeverFallsWhereThePointsDip) {
  // A noisy middle range timed faster than the small sizes: the fit stays flat there
  // (slope 0) instead of falling.
  std::vector<Point> pts;
  for (double x : {4.0, 64.0, 1024.0, 4096.0}) pts.push_back({x, 1e-3});
  for (double x : {16384.0, 32768.0, 65536.0}) pts.push_back({x, 0.7e-3});
  for (double x : {1e6, 4e6, 16e6}) pts.push_back({x, 1e-3 + x * 1e-9});
  const CurveFit f = fit_curve(pts, {0, 8192, 524288});
  for (double s : f.slopes) EXPECT_GE(s, 0);
  for (double x = 1; x < 3e7; x *= 1.5) EXPECT_LE(f(x), f(x * 1.5) + 1e-15) << x;
  EXPECT_THROW(fit_curve(pts, {1, 8192}), FitError);              // first edge not 0
  EXPECT_THROW(fit_curve(pts, {0, 8192, 8192}), FitError);        // not increasing
  EXPECT_THROW(fit_curve({{1, 1}, {2, 2}}, {0, 10, 20}), FitError);  // fewer points than unknowns
  EXPECT_THROW(fit_curve({{1, 1}, {2, -2}, {3, 3}}, {0}), FitError);  // y <= 0
}

}  // namespace
}  // namespace gcu::calibrate
