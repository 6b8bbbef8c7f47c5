// Tests of convergence/tta_fit.h: the TTA constants are recovered from exact multipliers,
// and the held-out validation predicts each scheme from the others of its class.
#include "convergence/tta_fit.h"

#include "convergence/tta.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::calibrate {
namespace {

ConvergencePoint pt(const std::string& s, TtaClass c, double x, std::optional<double> m) {
  return ConvergencePoint{s, c, x, m};
}

TEST(TtaFit, ClassXMatchesTheModelsMultipliers) {
  // m = 1 + k x must be what convergence/tta.h computes from the same errors.
  const double k = 0.4;
  EXPECT_NEAR(1 + k * tta_class_x(TtaClass::ErrorFeedback, 0.9, 0.3, 4), model::ef_multiplier(0.7, k), 1e-12);
  EXPECT_NEAR(1 + k * tta_class_x(TtaClass::Unbiased, 0.75, 0.5, 4), model::unbiased_multiplier(0.75, 4, k), 1e-12);
  EXPECT_NEAR(1 + k * tta_class_x(TtaClass::Biased, 0.2, 0.1, 4), model::biased_multiplier(0.2, k), 1e-12);
  EXPECT_TRUE(std::isinf(tta_class_x(TtaClass::Biased, 1.0, 0.1, 2)));
}

TEST(TtaFit, RecoversExactConstantsAndPredictsHeldOutSchemesExactly) {
  std::vector<ConvergencePoint> pts;
  for (double x : {0.2, 0.5, 1.5}) pts.push_back(pt("ef" + std::to_string(x), TtaClass::ErrorFeedback, x, 1 + 0.3 * x));
  for (double x : {0.1, 0.4}) pts.push_back(pt("u" + std::to_string(x), TtaClass::Unbiased, x, 1 + 2.0 * x));
  const TtaFit f = fit_tta_constants(pts, 3);
  ASSERT_TRUE(f.constants[0] && f.constants[1]);
  EXPECT_NEAR(*f.constants[0], 0.3, 1e-12);
  EXPECT_NEAR(*f.constants[1], 2.0, 1e-12);
  EXPECT_FALSE(f.constants[2]);
  EXPECT_EQ(f.points[0], 3);
  EXPECT_EQ(f.validated, 5);
  ASSERT_TRUE(f.max_abs_rel_error);
  EXPECT_LT(*f.max_abs_rel_error, 1e-12);
}

TEST(TtaFit, HeldOutErrorIsTheOtherPointsSlope) {
  // Biased class: m = 1 + x (slope 1) and m = 1 + 3x at the same x = 0.5. Leaving the
  // first out predicts it with slope 3: 2.5 vs 1.5 measured (+66.7%); leaving the second
  // out predicts 1.5 vs 2.5 (-40%). The full fit's slope is 2.
  std::vector<ConvergencePoint> pts = {pt("a", TtaClass::Biased, 0.5, 1.5), pt("b", TtaClass::Biased, 0.5, 2.5),
                                       pt("alone", TtaClass::Unbiased, 0.2, 1.1)};
  const TtaFit f = fit_tta_constants(pts, 4);
  EXPECT_NEAR(*f.constants[2], 2.0, 1e-12);
  ASSERT_EQ(f.held_out.size(), 3u);
  EXPECT_NEAR(*f.held_out[0].predicted, 2.5, 1e-12);
  EXPECT_NEAR(*f.held_out[0].rel_error, 1.0 / 1.5, 1e-12);
  EXPECT_NEAR(*f.held_out[1].rel_error, -0.4, 1e-12);
  // Alone in its class: fitted, but nothing to validate it with.
  EXPECT_TRUE(f.constants[1]);
  EXPECT_FALSE(f.held_out[2].predicted);
  EXPECT_EQ(f.validated, 2);
  EXPECT_NEAR(*f.median_abs_rel_error, (1.0 / 1.5 + 0.4) / 2, 1e-12);
  EXPECT_NEAR(*f.max_abs_rel_error, 1.0 / 1.5, 1e-12);
}

TEST(TtaFit, NeverReachedPointsAreCheckedAgainstTheCap) {
  // Slope 1 from the reached points; x = 5 predicts m = 6 >= cap 3 (agrees), x = 0.5
  // predicts 1.5 < 3 (the model would have said it reaches: disagrees).
  std::vector<ConvergencePoint> pts = {pt("r1", TtaClass::ErrorFeedback, 1.0, 2.0),
                                       pt("r2", TtaClass::ErrorFeedback, 2.0, 3.0),
                                       pt("n1", TtaClass::ErrorFeedback, 5.0, std::nullopt),
                                       pt("n2", TtaClass::ErrorFeedback, 0.5, std::nullopt)};
  const TtaFit f = fit_tta_constants(pts, 3);
  EXPECT_NEAR(*f.constants[0], 1.0, 1e-12);  // never-reached points do not enter the fit
  EXPECT_EQ(f.points[0], 2);
  EXPECT_TRUE(*f.held_out[2].agrees);
  EXPECT_FALSE(*f.held_out[3].agrees);
  EXPECT_EQ(f.never_validated, 2);
  EXPECT_EQ(f.never_agreeing, 1);
  EXPECT_FALSE(f.held_out[2].rel_error);
}

TEST(TtaFit, NegativeSlopeClampsAtZeroAndBadCapThrows) {
  std::vector<ConvergencePoint> pts = {pt("fast", TtaClass::Biased, 0.5, 0.8)};
  EXPECT_DOUBLE_EQ(*fit_tta_constants(pts, 3).constants[2], 0.0);
  EXPECT_THROW(fit_tta_constants(pts, 1.0), std::invalid_argument);
  // A biased scheme with e >= 1 (x infinite) neither enters the fit nor breaks it.
  pts.push_back(pt("useless", TtaClass::Biased, tta_class_x(TtaClass::Biased, 1.2, 0, 2), std::nullopt));
  pts.push_back(pt("ok", TtaClass::Biased, 0.5, 1.5));
  const TtaFit f = fit_tta_constants(pts, 3);
  EXPECT_EQ(f.points[2], 2);
  EXPECT_TRUE(std::isinf(*f.held_out[1].predicted));
  EXPECT_TRUE(*f.held_out[1].agrees);
}

}  // namespace
}  // namespace gcu::calibrate
