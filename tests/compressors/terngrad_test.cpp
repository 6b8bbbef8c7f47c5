#include "compressors/terngrad.h"
#include "counting_comm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

TEST(TernGrad, ValuesAreTernaryTimesMaxAndUnbiased) {
  const int64_t n = 50;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = d(gen);
  float mx = 0;
  for (float v : x) mx = std::max(mx, std::fabs(v));
  const BucketLayout layout = BucketLayout::flat(n);
  auto c = make_compressor("terngrad");
  const int draws = 4000;
  std::vector<double> mean(n, 0.0);
  std::vector<float> out(n);
  for (int k = 0; k < draws; ++k) {
    c->roundtrip(0, x.data(), out.data(), layout);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(out[i] == 0.0f || std::fabs(out[i]) == mx) << out[i];
      if (out[i] != 0.0f) ASSERT_EQ(std::signbit(out[i]), std::signbit(x[i]));
      mean[i] += out[i] / draws;
    }
  }
  for (int64_t i = 0; i < n; ++i)  // std of one draw <= max; 6 sigma of the mean
    ASSERT_NEAR(mean[i], x[i], 6 * mx / std::sqrt(double(draws))) << i;
}

TEST(TernGrad, StepMatchesPlanAndAveragesRanks) {
  const BucketLayout layout{{{3, 7}, {5}}};
  const int64_t n = layout.numel();
  std::vector<std::vector<float>> in(4, std::vector<float>(n));
  for (int r = 0; r < 4; ++r)
    for (int64_t i = 0; i < n; ++i) in[r][i] = (i % 3 == 0) ? 1.0f : -0.25f * r;  // max |x| = 1 on every rank
  const auto res = run_step("terngrad", in, layout);
  auto c = make_compressor("terngrad");
  // 2 scales + 2-bit codes, 16 per word
  EXPECT_EQ(c->wire_bytes(layout, 4), 4 * (2 + (n + 15) / 16));
  for (int r = 0; r < 4; ++r) {
    expect_calls_match_plan(res.calls[r], c->plan(layout, 4));
    EXPECT_EQ(res.out[r], res.out[0]);
  }
  // Elements equal to the max of their tensor on every rank are kept exactly.
  for (int64_t i = 0; i < n; ++i) {
    double avg = 0;
    bool exact = true;
    for (int r = 0; r < 4; ++r) {
      avg += in[r][i] / 4;
      exact = exact && in[r][i] == 1.0f;
    }
    if (exact) EXPECT_FLOAT_EQ(res.out[0][i], avg);
  }
}

TEST(TernGrad, ZerosAndNaN) {
  const BucketLayout layout = BucketLayout::flat(3);
  auto res = run_step("terngrad", {{0, 0, 0}, {0, 0, 0}}, layout);
  EXPECT_EQ(res.out[0], (std::vector<float>{0, 0, 0}));
  res = run_step("terngrad", {{0, NAN, 0}, {0, 1, 0}}, layout);
  for (float v : res.out[1]) EXPECT_TRUE(std::isnan(v));
}

TEST(TernGrad, SpecRoundTripsAndBadParamsThrow) {
  EXPECT_EQ(make_compressor("terngrad")->spec(), "terngrad");
  EXPECT_EQ(make_compressor("terngrad:seed=2,bucket=64")->spec(), "terngrad:bucket=64,seed=2");
  EXPECT_THROW(make_compressor("terngrad:bucket=-3"), CompressorError);
  EXPECT_THROW(make_compressor("terngrad:levels=3"), CompressorError);
}
