// validate/rounds_plan.cpp: how many rounds would let a noise-limited cell count, and the
// grid's plan (validate.h: rounds_to_count, plan_rounds).
#include "validate/validate.h"

#include "round_cells.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gcu::validate {
namespace {

using round_cells::cell_with_rounds;

double scale(int n) { return student_t90(n - 1) / std::sqrt(double(n)); }

TEST(RoundsToCount, ACountedCellNeedsNone) {
  const auto c = cell_with_rounds({0.100, 0.101, 0.099}, 0.150);  // +50%: far outside its interval
  ASSERT_FALSE(c.noise_limited);
  EXPECT_EQ(rounds_to_count(c), kRoundsCounted);
}

TEST(RoundsToCount, FewestRoundsWhoseIntervalFallsBelowTheError) {
  // Mean 0.1, s = 0.01: the 80% interval of the mean of 3 is 2 t90(2) 0.01 / sqrt(3) =
  // 21.8% of the value, above the +13% error. At the same spread it shrinks as
  // t90(m-1)/sqrt(m); the answer is the first m where it is below 13% (6: 12.0%).
  const auto c = cell_with_rounds({0.100, 0.110, 0.090}, 0.113);
  ASSERT_TRUE(c.noise_limited);
  ASSERT_NEAR(c.uncertainty, 2 * student_t90(2) * 0.01 / std::sqrt(3.0) / 0.1, 1e-9);
  int want = 0;
  for (int m = 4; m <= kRoundsPlanMax && !want; ++m)
    if (c.uncertainty * scale(m) / scale(3) < 0.13) want = m;
  EXPECT_EQ(rounds_to_count(c), want);
  EXPECT_GT(want, 3);
  // The answer is the fewest: one round fewer would still be noise-limited.
  EXPECT_GE(c.uncertainty * scale(want - 1) / scale(3), 0.13 - 1e-12);
}

TEST(RoundsToCount, TheCalibrationsNoiseAboveTheErrorCannotBeOutwaited) {
  const auto c = cell_with_rounds({0.100, 0.110, 0.090}, 0.113, /*calibration=*/0.15);
  ASSERT_TRUE(c.noise_limited);
  EXPECT_EQ(rounds_to_count(c), kRoundsCalibrationLimited);
  // Below the error, the calibration's noise takes its share of what the rounds must reach.
  const auto d = cell_with_rounds({0.100, 0.110, 0.090}, 0.113, /*calibration=*/0.10);
  const auto e = cell_with_rounds({0.100, 0.110, 0.090}, 0.113);
  ASSERT_GT(rounds_to_count(d), 0);
  EXPECT_GT(rounds_to_count(d), rounds_to_count(e));
}

TEST(RoundsToCount, AModelWithinTheNoiseIsBeyondAnyPlan) {
  const auto c = cell_with_rounds({0.100, 0.110, 0.090}, 0.1001);  // +0.1% against a 22% interval
  ASSERT_TRUE(c.noise_limited);
  EXPECT_EQ(rounds_to_count(c), kRoundsBeyond);
}

TEST(RoundsToCount, OneRoundHasNoSpreadToScale) {
  CellResult c = cell_with_rounds({0.100}, 0.1001);
  c.samples.clear();
  for (double v : {0.08, 0.12, 0.10, 0.09, 0.11}) {  // an iteration spread, one round
    Breakdown b{};
    b[size_t(Component::Total)] = v;
    c.samples.push_back(b);
  }
  compute_stats(c, "mean");
  ASSERT_TRUE(c.noise_limited);
  EXPECT_EQ(rounds_to_count(c), kRoundsOneRound);
}

TEST(PlanRounds, TalliesTheNoiseLimitedCellsAtTwiceAndFourTimesTheRounds) {
  std::vector<CellResult> cells;
  cells.push_back(cell_with_rounds({0.100, 0.101, 0.099}, 0.150));        // counted
  cells.push_back(cell_with_rounds({0.100, 0.110, 0.090}, 0.113));        // counts at a few more
  cells.push_back(cell_with_rounds({0.100, 0.110, 0.090}, 0.1001));       // beyond
  cells.push_back(cell_with_rounds({0.100, 0.110, 0.090}, 0.113, 0.15));  // calibration
  CellResult failed;
  failed.ok = false;
  cells.push_back(failed);
  const int k = rounds_to_count(cells[1]);
  ASSERT_GT(k, 3);
  const RoundsPlan p = plan_rounds(cells);
  EXPECT_EQ(p.rounds, 3);
  EXPECT_EQ(p.ok, 4);
  EXPECT_EQ(p.noise_limited, 3);
  EXPECT_EQ(p.at_2x, k <= 6 ? 1 : 0);
  EXPECT_EQ(p.at_4x, k <= 12 ? 1 : 0);
  EXPECT_EQ(p.beyond, 1);
  EXPECT_EQ(p.calibration_limited, 1);
  EXPECT_DOUBLE_EQ(p.noise_limited_fraction_4x, double(3 - p.at_4x) / 4);
  // summarize() carries the plan.
  EXPECT_EQ(summarize(cells).rounds_plan.noise_limited, 3);
}

}  // namespace
}  // namespace gcu::validate
