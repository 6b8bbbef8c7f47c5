// model/interference.h: the gamma step run through the Predictor, the two factors solved
// jointly from its measured ends, the ends of their ranges reported, and the event rate of
// a profile that gives only the published stretch.
#include "model/interference.h"

#include "model/iteration.h"
#include "model/profile_json.h"
#include "tests/model/fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace gcu::model {
namespace {

// 2 ranks, ring, alpha 50 us per step, 8 Gbit/s: an all-reduce of n bytes costs
// 2 alpha + n / 1e9 s, its fixed part (an empty message) 100 us.
Profile two_rank_ring() {
  Profile p = testing::tiny_profile(2, 1000, 2, 1);
  p.cluster.inter = {8.0, 50e-6, {}};
  p.cluster.intra = p.cluster.inter;
  return p;
}

BesideStep step_of(double backward_s) {
  BesideStep s;
  s.backward_alone_s = backward_s;
  s.bucket_bytes = {1e6, 3e6};  // alone 1.1 + 3.1 ms; CPU side 1 + 3 ms
  return s;
}

TEST(Interference, TheStepThroughThePredictorByHand) {
  const Profile p = two_rank_ring();
  // gamma 2, comm_contention 2: calls of 0.1 + 2 x 1 and 0.1 + 2 x 3 ms beside a 20 ms
  // backward (8.2 ms), the backward at half speed meanwhile: 4.1 ms of its work done,
  // 15.9 ms left, so it ends at 24.1 ms.
  const BesideTimes t = beside_times(p, step_of(0.020), {}, 2.0, 2.0);
  EXPECT_NEAR(t.comm_end_s, 8.2e-3, 1e-9);
  EXPECT_NEAR(t.backward_end_s, 24.1e-3, 1e-9);
  // Nothing interferes at 1, 1: the calls alone (4.2 ms), the backward as alone.
  const BesideTimes alone = beside_times(p, step_of(0.020), {}, 1.0, 1.0);
  EXPECT_NEAR(alone.comm_end_s, 4.2e-3, 1e-9);
  EXPECT_NEAR(alone.backward_end_s, 0.020, 1e-9);
  // Calls scaled x2 on the link (the per-link step), their CPU side still the host link's:
  // 2.2 and 6.2 ms alone, contended max(2.2, 0.1 + 2 x 1) = 2.2 and max(6.2, 6.1) = 6.2.
  BesideCosting scaled;
  scaled.calls_scale = 2;
  EXPECT_NEAR(beside_times(p, step_of(0.020), scaled, 1.0, 2.0).comm_end_s, 8.4e-3, 1e-9);
}

TEST(Interference, JointFitRecoversTheFactorsThatMadeTheStep) {
  const Profile p = two_rank_ring();
  BesideStep s = step_of(0.020);
  s.backward_beside_s = 24.1e-3;
  s.comm_beside_s = 8.2e-3;
  const InterferenceFitResult f = fit_interference(p, s);
  EXPECT_NEAR(f.gamma, 2.0, 1e-6);
  EXPECT_NEAR(f.comm_contention, 2.0, 1e-6);
  EXPECT_FALSE(f.gamma_at_bound);
  EXPECT_FALSE(f.comm_contention_at_bound);
  EXPECT_NEAR(f.backward_residual(), 0, 1e-6);
  EXPECT_NEAR(f.comm_residual(), 0, 1e-6);
  // A backward that outlasts the calls only partly: 5 ms alone, the calls run past its end
  // at full speed. Made at (1.5, 3), recovered.
  BesideStep short_step = step_of(0.005);
  const BesideTimes made = beside_times(p, short_step, {}, 1.5, 3.0);
  short_step.backward_beside_s = made.backward_end_s;
  short_step.comm_beside_s = made.comm_end_s;
  const InterferenceFitResult g = fit_interference(p, short_step);
  EXPECT_NEAR(g.gamma, 1.5, 1e-5);
  EXPECT_NEAR(g.comm_contention, 3.0, 1e-5);
}

TEST(Interference, AMisfitRunsToARangesEndAndIsReportedNotHidden) {
  const Profile p = two_rank_ring();
  // The backward delayed by 20 ms beside calls that took 8.2 ms: no rate while they run
  // explains it; gamma at its end, and the model's backward ends before the measured one.
  BesideStep s = step_of(0.020);
  s.backward_beside_s = 0.040;
  s.comm_beside_s = 8.2e-3;
  const InterferenceFitResult f = fit_interference(p, s);
  EXPECT_TRUE(f.gamma_at_bound);
  EXPECT_EQ(f.gamma, kGammaMax);
  EXPECT_LT(f.backward_residual(), -0.1);
  // Calls that ran all through a backward stretched 2x, longer than comm_contention's end
  // explains (at 8: 8.1 + 24.1 = 32.2 ms against 40): the rest is the wire's, and gamma is
  // the rate over the 40 ms they ran, the stretch.
  BesideStep through = step_of(0.020);
  through.backward_beside_s = 0.040;
  through.comm_beside_s = 0.040;
  const InterferenceFitResult t = fit_interference(p, through);
  EXPECT_TRUE(t.comm_contention_at_bound);
  EXPECT_GT(t.calls_stretch, 1);
  EXPECT_NEAR(t.gamma, 2.0, 1e-5);
  EXPECT_NEAR(t.model.comm_end_s, 0.040, 1e-6);
  EXPECT_NEAR(t.model.backward_end_s, 0.040, 1e-6);
  // Calls faster beside the backward than alone: comm_contention 1, the residual says by how much.
  s.backward_beside_s = 0.021;
  s.comm_beside_s = 3e-3;
  const InterferenceFitResult fast = fit_interference(p, s);
  EXPECT_EQ(fast.comm_contention, 1.0);
  EXPECT_NEAR(fast.comm_residual(), 4.2 / 3.0 - 1, 1e-6);
  // Bad input names the problem.
  s.comm_beside_s = std::nan("");
  EXPECT_THROW(fit_interference(p, s), ModelError);
  BesideStep none = step_of(0.020);
  none.bucket_bytes.clear();
  none.backward_beside_s = none.comm_beside_s = 0.01;
  EXPECT_THROW(fit_interference(p, none), ModelError);
}

TEST(Interference, TheEventRateOfAPublishedStretch) {
  std::ifstream in(std::string(GCU_SOURCE_DIR) + "/data/profiles/v100-resnet50.json");
  std::stringstream text;
  text << in.rdbuf();
  const Profile p = profile_from_string(text.str());
  ASSERT_TRUE(p.cluster.gamma_from_stretch);
  EXPECT_DOUBLE_EQ(p.cluster.gamma_stretch, 1.07);
  // The rate is above the stretch (the collectives do not run through the whole backward)
  // and stretches the profile's own FP32 backward by 1.07 in the event model.
  EXPECT_GT(p.cluster.gamma, 1.07);
  model::Setup s;
  s.scheme = "none";
  const IterationResult r = Predictor(p, s).predict();
  EXPECT_NEAR(r.backward_end_s / r.backward_s, 1.07, 1e-6);
  EXPECT_DOUBLE_EQ(rate_from_stretch(p, 1.0), 1.0);
  EXPECT_THROW(rate_from_stretch(p, 0.9), ModelError);
  // Written back, the derived rate is left out, so that it is derived again.
  const std::string back = profile_to_json(p).dump();
  EXPECT_EQ(back.find("backward_by_collective"), std::string::npos);
  EXPECT_NE(back.find("\"gamma_stretch\":1.07"), std::string::npos);
}

}  // namespace
}  // namespace gcu::model
