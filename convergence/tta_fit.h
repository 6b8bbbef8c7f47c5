// Fit of the TTA model's constants (convergence/tta.h) from measured iteration multipliers, and
// their validation on held-out schemes (docs/calibrate.md: constants fitted from short
// calibration runs, validated on held-out schemes). Pure: no LibTorch, no I/O.
//
// Each convergence run gives a point (class, x, m): m = iterations(scheme) /
// iterations(FP32), or "never" within the run's cap; x is the class's error figure, so
// that the model says m = 1 + constant * x:
//   error feedback: x = 1/delta - 1, delta = 1 - relative_error_ef   (ef_scale)
//   unbiased:       x = w / p, w = relative_error                      (variance_scale)
//   biased, no EF:  x = e / (1 - e), e = relative_error                (biased_scale)
// A class's constant is the least-squares slope through the origin of (m - 1) on x over
// its points that reached the target (clamped at 0). Held-out validation (leave one
// out): each point is predicted from the constant fitted on the other points of its
// class; a point that never reached the target is predicted right when the held-out
// model also says it needs more than the cap (m_hat >= cap).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

enum class TtaClass { ErrorFeedback = 0, Unbiased = 1, Biased = 2 };
const char* tta_class_name(TtaClass c);      // "error feedback", "unbiased", "biased"
const char* tta_constant_name(TtaClass c);   // "ef_scale", "variance_scale", "biased_scale"

struct ConvergencePoint {
  std::string spec;
  TtaClass cls = TtaClass::Biased;
  double x = 0;                      // the class's error figure (see above), >= 0
  std::optional<double> multiplier;  // measured m; absent = never reached within the cap
};

// x of a scheme of class c from its relative errors (without and with error feedback)
// and p workers; infinite for a biased scheme with e >= 1, 1/delta - 1 with delta
// floored at 1e-6.
double tta_class_x(TtaClass c, double relative_error, double relative_error_ef, int workers);

struct HeldOutPrediction {
  std::string spec;
  TtaClass cls = TtaClass::Biased;
  std::optional<double> measured;   // absent = never within the cap
  std::optional<double> predicted;  // absent = no other point of its class to fit from
  std::optional<double> rel_error;  // (predicted - measured) / measured, both present
  std::optional<bool> agrees;       // never-reached points: predicted >= cap
};

struct TtaFit {
  std::array<std::optional<double>, 3> constants;  // by TtaClass; absent = no usable point
  std::array<int, 3> points{0, 0, 0};              // reached points with x > 0 per class
  std::vector<HeldOutPrediction> held_out;         // one per input point, input order
  int validated = 0;                               // points with a rel_error
  std::optional<double> median_abs_rel_error;      // over the validated points
  std::optional<double> max_abs_rel_error;
  int never_agreeing = 0, never_validated = 0;     // never-reached points with a prediction
};

// cap: the runs' iteration cap as a multiplier (max_factor); > 1.
TtaFit fit_tta_constants(const std::vector<ConvergencePoint>& points, double cap);

}  // namespace gcu::calibrate
