// Tests of the compression-error measurement (compressors/error_measure.h).
#include "compressors/error_measure.h"
#include "compressors/error_feedback.h"
#include "compressors/registry.h"
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
  EXPECT_NEAR(none.delta, 1.0, 1e-12);
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

// Correlated gradients (a fixed direction plus noise), as in training: with top-1% and
// error feedback the residual accumulates to many gradients' worth, so the applied update
// C(g + e) is far from g. That distance (update_error_ef) exceeds 1; it used to be
// reported as rel_error_ef, and the TTA model's delta = 1 - rel_error_ef went negative.
TEST(ErrorMeasure, ErrorFeedbackFigureIsAContractionInZeroOne) {
  const auto base = gaussian(4000, 11);
  std::vector<std::vector<float>> gs;
  for (int t = 0; t < 60; ++t) {
    auto noise = gaussian(4000, 100 + t);
    std::vector<float> g(base.size());
    for (size_t i = 0; i < g.size(); ++i) g[i] = base[i] + 0.3f * noise[i];
    gs.push_back(g);
  }
  for (const char* spec : {"topk:k=0.01", "randomk:k=0.05", "efsignsgd", "randomk:k=0.1,unbiased=true"}) {
    SCOPED_TRACE(spec);
    const auto s = measure_error(spec, gs);
    EXPECT_GE(s.rel_error_ef, 0.0);
    EXPECT_LT(s.rel_error_ef, 1.0);
    const double delta_ef = 1.0 - s.rel_error_ef;  // what convergence/tta.cpp computes
    EXPECT_GT(delta_ef, 0.0);
    EXPECT_LE(delta_ef, 1.0);
    EXPECT_GT(s.delta, 0.0);
    EXPECT_LE(s.delta, 1.0);
    EXPECT_LE(s.delta_min, s.delta);
    EXPECT_GT(s.residual_ratio, 0.0);
  }
  // Sparsifiers and scaled sign output optimally scaled values: the scale-optimal figure
  // is their plain ratio ||C(x) - x||^2 / ||x||^2 on the compensated input.
  const auto topk = measure_error("topk:k=0.01", gs);
  EXPECT_NEAR(topk.rel_error_ef, topk.rel_error_ef_raw, 1e-6);
  EXPECT_GT(topk.update_error_ef, 1.0);  // the old figure: not a contraction
  EXPECT_NEAR(topk.delta, 1.0 - topk.rel_error, 1e-6);
  const auto efs = measure_error("efsignsgd", gs);
  EXPECT_TRUE(efs.ef_builtin);
  EXPECT_NEAR(efs.rel_error_ef, efs.rel_error_ef_raw, 1e-6);
  // Unbiased randomk (w = n/K - 1 = 9) is not contractive: its raw ratio is ~9 with or
  // without EF; the scale-optimal one is ~w/(1+w) = 0.9.
  const auto ur = measure_error("randomk:k=0.1,unbiased=true", gs);
  EXPECT_GT(ur.rel_error_ef_raw, 5.0);
  EXPECT_NEAR(ur.rel_error_ef, 0.9, 0.03);
  EXPECT_NEAR(ur.delta, 0.1, 0.03);
}

// The meter's residual is the ef() wrapper's: after the same buffers, the compensated
// input it reconstructs gives the wrapper's output error exactly for top-k (x = C(x) + e).
TEST(ErrorMeasure, ResidualRatioMatchesTheEfWrapper) {
  const auto gs = sequence(10, 1000, 21);
  const auto s = measure_error("topk:k=0.05", gs);
  auto ef = make_compressor("ef(topk:k=0.05)");
  std::vector<float> out(1000);
  double sum = 0;
  for (const auto& g : gs) {
    ef->roundtrip(0, g.data(), out.data(), BucketLayout::flat(1000));
    const auto& e = static_cast<const ErrorFeedback&>(*ef).residual(0);
    double ee = 0, gg = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      ee += static_cast<double>(e[i]) * e[i];
      gg += static_cast<double>(g[i]) * g[i];
    }
    sum += ee / gg;
  }
  EXPECT_NEAR(s.residual_ratio, sum / gs.size(), 1e-9 * (1 + sum));
}
