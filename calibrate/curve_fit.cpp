// Continuous cost curves by non-negative least squares (curve_fit.h).
#include "calibrate/curve_fit.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace gcu::calibrate {

namespace {

bool finite(double x) { return std::isfinite(x); }

// The curve's features at x: 1 (the intercept), then the part of x inside each range.
void features(double x, const std::vector<double>& edges, double* out) {
  out[0] = 1;
  for (size_t k = 0; k < edges.size(); ++k) {
    const double hi = k + 1 < edges.size() ? edges[k + 1] : std::numeric_limits<double>::infinity();
    out[k + 1] = std::clamp(std::min(x, hi) - edges[k], 0.0, hi - edges[k]);
  }
}

double median_abs(std::vector<double> v) {
  for (double& x : v) x = std::abs(x);
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

double CurveFit::operator()(double x) const {
  double y = intercept;
  for (size_t k = 0; k < edges.size() && k < slopes.size(); ++k) {
    const double hi = k + 1 < edges.size() ? edges[k + 1] : std::numeric_limits<double>::infinity();
    y += slopes[k] * std::clamp(std::min(x, hi) - edges[k], 0.0, hi - edges[k]);
  }
  return y;
}

std::vector<double> nnls(const std::vector<double>& a_row_major, size_t rows, size_t cols, const std::vector<double>& b) {
  if (a_row_major.size() != rows * cols || b.size() != rows || cols == 0)
    throw FitError("nnls: a " + std::to_string(rows) + " x " + std::to_string(cols) + " system with " +
                   std::to_string(a_row_major.size()) + " matrix entries and " + std::to_string(b.size()) + " targets");
  for (double v : a_row_major)
    if (!finite(v)) throw FitError("nnls: a matrix entry is not finite");
  for (double v : b)
    if (!finite(v)) throw FitError("nnls: a target is not finite");
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> A(a_row_major.data(),
                                                                                                    Eigen::Index(rows),
                                                                                                    Eigen::Index(cols));
  const Eigen::Map<const Eigen::VectorXd> y(b.data(), Eigen::Index(rows));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(Eigen::Index(cols));
  std::vector<bool> passive(cols, false);
  const double tol = 1e-12 * std::max(1.0, A.cwiseAbs().maxCoeff()) * std::max(1.0, y.cwiseAbs().maxCoeff());
  // Least squares on the passive set, zero elsewhere.
  const auto solve_passive = [&]() {
    std::vector<Eigen::Index> idx;
    for (size_t j = 0; j < cols; ++j)
      if (passive[j]) idx.push_back(Eigen::Index(j));
    Eigen::MatrixXd Ap(A.rows(), Eigen::Index(idx.size()));
    for (size_t c = 0; c < idx.size(); ++c) Ap.col(Eigen::Index(c)) = A.col(idx[c]);
    const Eigen::VectorXd sp = Ap.colPivHouseholderQr().solve(y);
    Eigen::VectorXd s = Eigen::VectorXd::Zero(Eigen::Index(cols));
    for (size_t c = 0; c < idx.size(); ++c) s(idx[c]) = sp(Eigen::Index(c));
    return s;
  };
  for (size_t outer = 0; outer < 3 * cols + 3; ++outer) {
    const Eigen::VectorXd w = A.transpose() * (y - A * x);
    Eigen::Index t = -1;
    double best = tol;
    for (size_t j = 0; j < cols; ++j)
      if (!passive[j] && w(Eigen::Index(j)) > best) {
        best = w(Eigen::Index(j));
        t = Eigen::Index(j);
      }
    if (t < 0) break;
    passive[size_t(t)] = true;
    for (size_t inner = 0; inner < 3 * cols + 3; ++inner) {
      const Eigen::VectorXd s = solve_passive();
      bool feasible = true;
      double step = 1;
      for (size_t j = 0; j < cols; ++j)
        if (passive[j] && s(Eigen::Index(j)) <= 0) {
          feasible = false;
          const double d = x(Eigen::Index(j)) - s(Eigen::Index(j));
          if (d > 0) step = std::min(step, x(Eigen::Index(j)) / d);
        }
      if (feasible) {
        x = s;
        break;
      }
      x += step * (s - x);
      for (size_t j = 0; j < cols; ++j)
        if (passive[j] && x(Eigen::Index(j)) <= 1e-300) {
          passive[j] = false;
          x(Eigen::Index(j)) = 0;
        }
    }
  }
  std::vector<double> out(cols);
  for (size_t j = 0; j < cols; ++j) out[j] = std::max(0.0, x(Eigen::Index(j)));
  return out;
}

CurveFit fit_curve(const std::vector<Point>& pts, const std::vector<double>& edges, double huber_k, int iterations,
                   double min_scale) {
  if (edges.empty() || edges.front() != 0) throw FitError("curve fit: the first range must start at 0");
  for (size_t k = 1; k < edges.size(); ++k)
    if (!(edges[k] > edges[k - 1]) || !finite(edges[k])) throw FitError("curve fit: range edges must increase");
  const size_t cols = edges.size() + 1;
  if (pts.size() < cols)
    throw FitError("curve fit: " + std::to_string(pts.size()) + " points for " + std::to_string(cols) + " unknowns");
  for (const auto& p : pts)
    if (!finite(p.x) || p.x < 0 || !finite(p.y) || !(p.y > 0))
      throw FitError("curve fit: every point needs x >= 0 and y > 0, finite");
  // Relative residuals: row i scaled by 1 / y_i (target 1), then by sqrt of its Huber weight.
  std::vector<double> base(pts.size() * cols), wts(pts.size(), 1.0);
  for (size_t i = 0; i < pts.size(); ++i) {
    features(pts[i].x, edges, &base[i * cols]);
    for (size_t j = 0; j < cols; ++j) base[i * cols + j] /= pts[i].y;
  }
  CurveFit f;
  f.edges = edges;
  for (int it = 0; it < std::max(1, iterations); ++it) {
    std::vector<double> a(base.size()), b(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      const double s = std::sqrt(wts[i]);
      for (size_t j = 0; j < cols; ++j) a[i * cols + j] = base[i * cols + j] * s;
      b[i] = s;
    }
    const std::vector<double> x = nnls(a, pts.size(), cols, b);
    f.intercept = x[0];
    f.slopes.assign(x.begin() + 1, x.end());
    const std::vector<double> r = relative_errors(f, pts);
    const double scale = std::max(min_scale, 1.4826 * median_abs(r));
    for (size_t i = 0; i < pts.size(); ++i)
      wts[i] = std::abs(r[i]) <= huber_k * scale ? 1.0 : huber_k * scale / std::abs(r[i]);
  }
  return f;
}

std::vector<double> relative_errors(const CurveFit& f, const std::vector<Point>& pts) {
  std::vector<double> r;
  r.reserve(pts.size());
  for (const auto& p : pts) r.push_back((f(p.x) - p.y) / p.y);
  return r;
}

}  // namespace gcu::calibrate
