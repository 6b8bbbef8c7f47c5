// Timed calls per size of a collective sweep (calibrate/sweep_plan.h).
#include "calibrate/sweep_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace gcu::calibrate {
namespace {

SizeNeed size(int done, double mean_s, double sd_s, int time_target, int floor = 5, int cap = 100) {
  SizeNeed s;
  s.done = done;
  s.mean_s = mean_s;
  s.sd_s = sd_s;
  s.cost_s = mean_s + 0.01;
  s.time_target = time_target;
  s.floor = floor;
  s.cap = cap;
  return s;
}

double cost(const std::vector<SizeNeed>& s, const std::vector<int>& calls) {
  double c = 0;
  for (size_t i = 0; i < s.size(); ++i) c += (calls[i] - s[i].done) * s[i].cost_s;
  return c;
}

TEST(SweepPlan, RelativeStandardErrorOfTheMean) {
  EXPECT_NEAR(relative_standard_error(size(25, 0.004, 0.002, 0)), 0.5 / 5, 1e-12);
  EXPECT_TRUE(std::isinf(relative_standard_error(size(1, 0.004, 0.002, 0))));
  EXPECT_TRUE(std::isinf(relative_standard_error(size(5, 0, 0, 0))));
}

TEST(SweepPlan, NoisySizesWantCallsForTheTargetQuietOnesKeepTheirTimeTarget) {
  // cv 0.5 at 3%: ceil(0.25 / 0.0009) = 278 -> the cap; cv 0.06: 4 -> the time target.
  const std::vector<SizeNeed> s = {size(5, 0.004, 0.002, 20), size(5, 0.02, 0.0012, 30, 25)};
  const auto calls = plan_calls(s, 0.03, 0, 5);
  EXPECT_EQ(calls[0], 100);
  EXPECT_EQ(calls[1], 30);
  // Without a precision target: the time targets.
  const auto old = plan_calls(s, 0, 0, 5);
  EXPECT_EQ(old[0], 20);
  EXPECT_EQ(old[1], 30);
}

TEST(SweepPlan, ShortBudgetKeepsTheNoisySizesShareAndFits) {
  const std::vector<SizeNeed> s = {size(5, 0.004, 0.002, 20), size(5, 0.004, 0.0004, 20),
                                   size(5, 0.02, 0.002, 40, 25)};
  const double budget = 1.0;
  const auto calls = plan_calls(s, 0.03, budget, 5);
  EXPECT_LE(cost(s, calls), budget + 1e-9);
  EXPECT_GT(cost(s, calls), 0.8 * budget);  // uses the budget, not far less
  // The noisy size keeps more calls than the quiet one of the same cost.
  EXPECT_GT(calls[0], 2 * calls[1]);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_GE(calls[i], 5);
}

TEST(SweepPlan, NeverBelowCallsMadeOrTheFloorEvenWithNoBudgetLeft) {
  const std::vector<SizeNeed> s = {size(12, 0.004, 0.002, 20), size(3, 0.004, 0.002, 20)};
  const auto calls = plan_calls(s, 0.03, 1e-6, 5);
  EXPECT_EQ(calls[0], 12);
  EXPECT_EQ(calls[1], 5);
}

TEST(SweepPlan, UnknownSpreadFallsBackToTheTimeTarget) {
  const std::vector<SizeNeed> s = {size(0, 0, 0, 17), size(5, 0.004, std::nan(""), 9)};
  const auto calls = plan_calls(s, 0.03, 0, 5);
  EXPECT_EQ(calls[0], 17);
  EXPECT_EQ(calls[1], 9);
}

}  // namespace
}  // namespace gcu::calibrate
