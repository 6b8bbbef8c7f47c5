// Pilot predictions through the profile into the TTA model (convergence/tta.h, profile_json.h):
// status, multiplier interval, basis, and the JSON round trip.
#include "model/profile_json.h"
#include "convergence/tta.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

Convergence pilot_conv() {
  Convergence c;
  c.baseline_iterations = 1000;
  return c;
}

TEST(TtaPilot, ReachesWithInterval) {
  Convergence c = pilot_conv();
  c.schemes["qsgd"].pilot = PilotFigures{"reaches", "pilot-multiplier", 1.5, 1.2, 1.9, false, {}};
  c.schemes["qsgd"].relative_error = 3.0;  // the constants would say something else: the pilot wins
  const auto e = iterations_to_target(c, "qsgd", {}, 8, {});
  EXPECT_EQ(e.status, TtaStatus::Reaches);
  EXPECT_DOUBLE_EQ(*e.iterations, 1500);
  EXPECT_DOUBLE_EQ(*e.iterations_lo, 1200);
  EXPECT_DOUBLE_EQ(*e.iterations_hi, 1900);
  EXPECT_EQ(e.basis, "pilot-multiplier");
  const auto t = time_to_accuracy(e, 0.1);
  EXPECT_DOUBLE_EQ(*t.tta_s, 150);
  EXPECT_DOUBLE_EQ(*t.tta_lo_s, 120);
  EXPECT_DOUBLE_EQ(*t.tta_hi_s, 190);
}

TEST(TtaPilot, NeverAndUncertain) {
  Convergence c = pilot_conv();
  c.schemes["signsgd"].pilot = PilotFigures{"never", "pilot-lag", std::nullopt, std::nullopt, std::nullopt, false,
                                            {"plateau: fitted asymptote 0.9 above the target 0.5"}};
  c.schemes["terngrad"].pilot = PilotFigures{"uncertain", "pilot-lag", 2.0, 1.1, 9.0, true, {"misfit"}};
  const auto n = iterations_to_target(c, "signsgd", {true, false, false}, 8, {});
  EXPECT_EQ(n.status, TtaStatus::NeverReaches);
  EXPECT_FALSE(n.iterations.has_value());
  EXPECT_EQ(n.basis, "pilot-lag: never");
  EXPECT_NE(n.evidence.at(0).find("plateau"), std::string::npos);
  const auto u = iterations_to_target(c, "terngrad", {}, 8, {});
  EXPECT_EQ(u.status, TtaStatus::Uncertain);
  EXPECT_STREQ(tta_status_name(u.status), "uncertain");
  EXPECT_DOUBLE_EQ(*u.iterations, 2000);
  EXPECT_NE(u.basis.find("widened"), std::string::npos);
}

TEST(TtaPilot, ConstantsAreMarkedFallback) {
  Convergence c = pilot_conv();
  c.schemes["ef(topk:k=0.01)"] = {0.93, 0.5, true, std::nullopt, std::nullopt};
  c.schemes["fp16"] = {1e-8, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  const auto e = iterations_to_target(c, "ef(topk:k=0.01)", {true, true, true}, 8, {});
  EXPECT_TRUE(is_fallback_basis(e.basis)) << e.basis;
  EXPECT_DOUBLE_EQ(*e.iterations, 2000);  // 1 + (1/0.5 - 1)
  const auto f = iterations_to_target(c, "fp16", {true, false, false}, 8, {});
  EXPECT_FALSE(is_fallback_basis(f.basis)) << f.basis;  // multiplier 1: the constants do not matter
}

TEST(TtaPilot, IntervalsOverlap) {
  TtaResult a, b;
  a.tta_s = 10, a.tta_lo_s = 8, a.tta_hi_s = 12;
  b.tta_s = 13, b.tta_lo_s = 11, b.tta_hi_s = 15;
  EXPECT_TRUE(*tta_intervals_overlap(a, b));
  b.tta_lo_s = 12.5;
  EXPECT_FALSE(*tta_intervals_overlap(a, b));
  b.tta_s.reset();
  EXPECT_FALSE(tta_intervals_overlap(a, b).has_value());
}

}  // namespace
}  // namespace gcu::model
