// Tests of calibrate/stats.h: quantiles, warm-up discard, element-wise medians.
#include "calibrate/stats.h"

#include <gtest/gtest.h>

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

TEST(Stats, ElementwiseMedian) {
  const auto m = elementwise_median({{100, 100}, {1, 4}, {2, 5}, {3, 6}}, 1);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[0], 2);
  EXPECT_DOUBLE_EQ(m[1], 5);
  EXPECT_THROW(elementwise_median({{1, 2}, {1}}), std::invalid_argument);
}

}  // namespace
}  // namespace gcu::calibrate
