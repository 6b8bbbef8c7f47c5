// Least-squares fit of the TTA constants and leave-one-out validation (see tta_fit.h).
#include "convergence/tta_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gcu::calibrate {
namespace {

bool usable(const ConvergencePoint& q) {
  return q.multiplier.has_value() && std::isfinite(q.x) && q.x > 0 && std::isfinite(*q.multiplier);
}

// Slope through the origin of (m - 1) on x over the usable points of class c, skipping
// index `skip` (-1: none).
std::optional<double> slope(const std::vector<ConvergencePoint>& pts, TtaClass c, long skip) {
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (static_cast<long>(i) == skip || pts[i].cls != c || !usable(pts[i])) continue;
    sxx += pts[i].x * pts[i].x;
    sxy += pts[i].x * (*pts[i].multiplier - 1);
  }
  if (sxx <= 0) return std::nullopt;
  return std::max(0.0, sxy / sxx);
}

}  // namespace

const char* tta_class_name(TtaClass c) {
  switch (c) {
    case TtaClass::ErrorFeedback: return "error feedback";
    case TtaClass::Unbiased: return "unbiased";
    case TtaClass::Biased: return "biased";
  }
  return "?";
}

const char* tta_constant_name(TtaClass c) {
  switch (c) {
    case TtaClass::ErrorFeedback: return "ef_scale";
    case TtaClass::Unbiased: return "variance_scale";
    case TtaClass::Biased: return "biased_scale";
  }
  return "?";
}

double tta_class_x(TtaClass c, double e, double e_ef, int workers) {
  switch (c) {
    case TtaClass::ErrorFeedback: {
      const double delta = std::max(1e-6, 1 - e_ef);
      return 1 / delta - 1;
    }
    case TtaClass::Unbiased: return e / std::max(1, workers);
    case TtaClass::Biased: return e < 1 ? e / (1 - e) : std::numeric_limits<double>::infinity();
  }
  return 0;
}

TtaFit fit_tta_constants(const std::vector<ConvergencePoint>& pts, double cap) {
  if (!(cap > 1)) throw std::invalid_argument("fit_tta_constants: cap must be > 1, got " + std::to_string(cap));
  TtaFit f;
  for (int c = 0; c < 3; ++c) f.constants[c] = slope(pts, static_cast<TtaClass>(c), -1);
  for (const auto& q : pts)
    if (usable(q)) ++f.points[static_cast<int>(q.cls)];
  std::vector<double> abs_err;
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& q = pts[i];
    HeldOutPrediction h{q.spec, q.cls, q.multiplier, std::nullopt, std::nullopt, std::nullopt};
    const auto k = slope(pts, q.cls, static_cast<long>(i));
    if (k) {
      h.predicted = std::isfinite(q.x) ? 1 + *k * q.x : std::numeric_limits<double>::infinity();
      if (q.multiplier && std::isfinite(*q.multiplier) && *q.multiplier > 0) {
        h.rel_error = (*h.predicted - *q.multiplier) / *q.multiplier;
        abs_err.push_back(std::fabs(*h.rel_error));
      } else if (!q.multiplier) {
        h.agrees = *h.predicted >= cap;
        ++f.never_validated;
        if (*h.agrees) ++f.never_agreeing;
      }
    }
    f.held_out.push_back(h);
  }
  f.validated = static_cast<int>(abs_err.size());
  if (!abs_err.empty()) {
    std::sort(abs_err.begin(), abs_err.end());
    const size_t n = abs_err.size();
    f.median_abs_rel_error = n % 2 ? abs_err[n / 2] : (abs_err[n / 2 - 1] + abs_err[n / 2]) / 2;
    f.max_abs_rel_error = abs_err.back();
  }
  return f;
}

}  // namespace gcu::calibrate
