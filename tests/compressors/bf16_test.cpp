// Tests of "bf16" (compressors/bf16.h) and of the vectorized bfloat16 conversion it uses.
#include "compressors/half.h"
#include "compressors/low_precision.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

TEST(Bf16, VectorConversionIsBitIdenticalToScalarReference) {
  std::vector<float> x = {0.0f, -0.0f, 1.0f, 3.4e38f, 1e-40f, INFINITY, -INFINITY, NAN, -NAN,
                          1.0f + 1.0f / 256, 1.0f + 3.0f / 256};
  std::mt19937 gen(3);
  for (int i = 0; i < 200000; ++i) x.push_back(bits_float(gen()));
  std::vector<uint16_t> h(x.size());
  lowp::to_bf16(x.data(), h.data(), x.size(), 1.0f);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(h[i], float_to_bf16(x[i])) << x[i];
  std::vector<float> back(h.size());
  lowp::from_bf16(h.data(), back.data(), h.size(), 1.0f);
  for (size_t i = 0; i < h.size(); ++i) ASSERT_EQ(float_bits(back[i]), float_bits(bf16_to_float(h[i])));
}

TEST(Bf16, RoundTripErrorBound) {
  const int64_t n = 10000;
  const std::vector<float> x = gaussian(n, 4, 100.0f);
  std::vector<float> y(n);
  make_compressor("bf16")->roundtrip(0, x.data(), y.data(), BucketLayout::flat(n));
  for (int64_t i = 0; i < n; ++i) EXPECT_LE(std::fabs(y[i] - x[i]), std::fabs(x[i]) * 0x1p-8f);
}

TEST(Bf16, StepAveragesAndPlanMatchesCountedCalls) {
  for (int p : {1, 2, 4}) {
    const int64_t n = 333;
    const auto layout = BucketLayout::flat(n);
    std::vector<std::vector<float>> in(p, std::vector<float>(n));
    std::mt19937 gen(10 + p);
    std::uniform_real_distribution<float> d(-1e20f, 1e20f);  // beyond fp16's range
    for (auto& v : in) for (auto& e : v) e = d(gen);
    expect_step_is_input_mean("bf16", in, layout, 1e20 * 0x1p-6);
    EXPECT_EQ(make_compressor("bf16")->wire_bytes(layout, p), 2 * n);
  }
}

TEST(Bf16, EmptyBucketSendsNothing) {
  EXPECT_TRUE(make_compressor("bf16")->plan(BucketLayout::flat(0), 2).empty());
  auto res = run_step("bf16", {{}, {}}, BucketLayout::flat(0));
  EXPECT_TRUE(res.calls[1].empty());
}
