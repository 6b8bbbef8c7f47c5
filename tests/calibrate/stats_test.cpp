// Tests of calibrate/stats.h: quantiles, warm-up discard, the standard error of a mean,
// element-wise medians.
#include "calibrate/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace gcu::calibrate {
namespace {

TEST(Stats, QuantilesInterpolateLikeNumpy) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(median(v), 3);
  EXPECT_DOUBLE_EQ(quantile(v, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(median({1, 2, 3, 10}), 2.5);
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile({1}, 1.5), std::invalid_argument);
}

TEST(Stats, WarmupIsDiscarded) {
  const Summary s = summarize({100, 90, 1, 2, 3}, 2);
  EXPECT_EQ(s.n, 3u);
  EXPECT_EQ(s.discarded, 2u);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.max, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_NEAR(s.rel_spread(), (2.8 - 1.2) / 2, 1e-12);
  // Never discards everything.
  EXPECT_EQ(summarize({7, 8}, 5).n, 1u);
  EXPECT_DOUBLE_EQ(summarize({7, 8}, 5).median, 8);
}

// The winsorized mean keeps a bimodal latency tail (30 of 100 calls 4 ms slower) and caps
// one 60 ms preemption at the 95th percentile; the plain mean does not.
TEST(Stats, WinsorizedMeanKeepsTheTailAndCapsARareOutlier) {
  std::vector<double> v;
  for (int i = 0; i < 100; ++i) v.push_back(i < 70 ? 0.5e-3 : 4.5e-3);
  const Summary clean = summarize(v);
  EXPECT_NEAR(clean.mean_w95, clean.mean, 1e-12);  // p95 is the slow mode itself
  EXPECT_NEAR(clean.mean_w95, 1.7e-3, 1e-9);
  v.back() = 60e-3;
  const Summary hit = summarize(v);
  EXPECT_NEAR(hit.mean, 1.7e-3 + 55.5e-3 / 100, 1e-9);
  EXPECT_NEAR(hit.mean_w95, 1.7e-3, 1e-9);
  EXPECT_DOUBLE_EQ(hit.median, 0.5e-3);
}

TEST(Stats, StandardErrorOfTheMeanUsesTheSampleSd) {
  EXPECT_EQ(standard_error_of_mean({}), 0.0);
  EXPECT_EQ(standard_error_of_mean({3.0}), 0.0);
  EXPECT_EQ(standard_error_of_mean({2.0, 2.0, 2.0}), 0.0);
  // {1, 2, 3, 4}: sample variance 5/3, se = sqrt(5/3 / 4)
  EXPECT_NEAR(standard_error_of_mean({1, 2, 3, 4}), std::sqrt(5.0 / 12.0), 1e-12);
}

TEST(Stats, ElementwiseMedian) {
  const auto m = elementwise_median({{100, 100}, {1, 4}, {2, 5}, {3, 6}}, 1);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[0], 2);
  EXPECT_DOUBLE_EQ(m[1], 5);
  EXPECT_THROW(elementwise_median({{1, 2}, {1}}), std::invalid_argument);
}

}  // namespace
}  // namespace gcu::calibrate
