// Tests of the compression-error measurement (compressors/error_measure.h).
#include "compressors/error_measure.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
std::vector<std::vector<float>> sequence(int T, int64_t n, unsigned seed) {
  std::vector<std::vector<float>> gs;
  for (int t = 0; t < T; ++t) gs.push_back(gaussian(n, seed + t, 1.0f, true));
  return gs;
}
}  // namespace

TEST(ErrorMeasure, LosslessAndKnownErrors) {
  const auto gs = sequence(5, 1000, 1);
  auto none = measure_error("none", gs);
  EXPECT_EQ(none.samples, 5);
  EXPECT_EQ(none.rel_error, 0.0);
  EXPECT_EQ(none.delta, 1.0);
  EXPECT_NEAR(none.cosine, 1.0, 1e-12);
  EXPECT_EQ(none.variance_factor, 0.0);
  auto fp16 = measure_error("fp16", gs);
  EXPECT_GT(fp16.rel_error, 0.0);
  EXPECT_LT(fp16.rel_error, 1e-6);
}

TEST(ErrorMeasure, TopkBeatsRandomkAndErrorFeedbackHelps) {
  const auto gs = sequence(20, 2000, 7);
  auto topk = measure_error("topk:k=0.05", gs);
  auto randk = measure_error("randomk:k=0.05", gs);
  EXPECT_LT(topk.rel_error, randk.rel_error);
  EXPECT_NEAR(randk.rel_error, 0.95, 0.05);  // biased randomk drops 95% of the energy on average
  EXPECT_TRUE(std::isnan(topk.variance_factor));
  EXPECT_GT(topk.delta, 0.0);
  EXPECT_LE(topk.rel_error, topk.rel_error_max);
  // Error feedback: the residual carries what was dropped; its energy relative to g stays finite.
  EXPECT_GT(topk.residual_ratio, 0.0);
  EXPECT_TRUE(std::isfinite(topk.rel_error_ef));
}

TEST(ErrorMeasure, UnbiasedRandomkVarianceFactorIsNOverKMinusOne) {
  std::vector<std::vector<float>> gs;
  for (int t = 0; t < 400; ++t) gs.push_back(gaussian(1000, 3 + t));
  auto s = measure_error("randomk:k=0.1,unbiased=true", gs);
  EXPECT_FALSE(s.biased);
  EXPECT_NEAR(s.variance_factor, 9.0, 0.6);  // n/K - 1 = 9
}

TEST(ErrorMeasure, ZeroBuffersAreSkippedAndCounted) {
  ErrorMeter m("topk:k=0.1");
  m.add(std::vector<float>(100, 0.0f));
  auto s = m.stats();
  EXPECT_EQ(s.samples, 0);
  EXPECT_EQ(s.zero_buffers, 1);
  EXPECT_TRUE(std::isnan(s.rel_error));
  m.add(gaussian(100, 1));
  EXPECT_EQ(m.stats().samples, 1);
}
