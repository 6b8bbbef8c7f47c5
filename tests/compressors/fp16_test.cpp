// Tests of "fp16" (compressors/fp16.h) and of the vectorized half conversion it uses.
#include "compressors/half.h"
#include "compressors/low_precision.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
void check_bit_identical();
}

TEST(Fp16, VectorConversionIsBitIdenticalToScalarReference) {
  const bool simd = lowp::use_simd(true);
  check_bit_identical();
  if (simd) {  // also the portable path
    lowp::use_simd(false);
    check_bit_identical();
    lowp::use_simd(true);
  }
}

namespace {
void check_bit_identical() {
  std::vector<float> x = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.0f, 65520.0f, 65536.0f, 1e30f,
                          6.1035156e-05f, 6.0e-05f, 5.9604645e-08f, 2.98e-08f, 2.9802322e-08f,
                          3.0e-08f, 1e-10f, INFINITY, -INFINITY, NAN, -NAN, 1.0f + 1.0f / 4096};
  std::mt19937 gen(1);
  for (int i = 0; i < 200000; ++i) x.push_back(bits_float(gen()));
  std::vector<uint16_t> h(x.size());
  lowp::to_half(x.data(), h.data(), x.size(), 1.0f);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(h[i], float_to_half(x[i])) << x[i];
  std::vector<uint16_t> all(65536);
  for (int i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> back(65536);
  lowp::from_half(all.data(), back.data(), 65536, 1.0f);
  for (int i = 0; i < 65536; ++i)
    ASSERT_EQ(float_bits(back[i]), float_bits(half_to_float(all[i]))) << i;
  // with a scale (the decode of an averaged sum)
  lowp::from_half(all.data(), back.data(), 65536, 0.25f);
  for (int i = 0; i < 65536; ++i)
    if (!std::isnan(back[i])) ASSERT_EQ(back[i], half_to_float(all[i]) * 0.25f) << i;
}
}  // namespace

TEST(Fp16, RoundTripErrorIsWithinHalfAnUlp) {
  const int64_t n = 10000;
  const std::vector<float> x = gaussian(n, 2);
  std::vector<float> y(n);
  make_compressor("fp16")->roundtrip(0, x.data(), y.data(), BucketLayout::flat(n));
  for (int64_t i = 0; i < n; ++i) {
    if (std::fabs(x[i]) >= 6.1035156e-05f)
      EXPECT_LE(std::fabs(y[i] - x[i]), std::fabs(x[i]) * 0x1p-11f) << x[i];
    else
      EXPECT_LE(std::fabs(y[i] - x[i]), 0x1p-25f) << x[i];
  }
}

TEST(Fp16, StepAveragesAndPlanMatchesCountedCalls) {
  for (int p : {1, 2, 4}) {
    const int64_t n = 1001;
    const auto layout = BucketLayout::flat(n);
    std::vector<std::vector<float>> in(p, std::vector<float>(n));
    std::mt19937 gen(p);
    std::uniform_real_distribution<float> d(-10.0f, 10.0f);
    for (auto& v : in) for (auto& e : v) e = d(gen);
    expect_step_is_input_mean("fp16", in, layout, 10.0 * 0x1p-10);
    EXPECT_EQ(make_compressor("fp16")->wire_bytes(layout, p), 2 * n);
  }
}

TEST(Fp16, SumDoesNotOverflowWhereEachValueFits) {
  const auto layout = BucketLayout::flat(1);
  auto res = run_step("fp16", {{60000.0f}, {60000.0f}, {60000.0f}, {60000.0f}}, layout);
  EXPECT_NEAR(res.out[0][0], 60000.0f, 32.0f);
}

TEST(Fp16, EmptyBucketSendsNothingAndNonFinitePropagates) {
  const auto empty = BucketLayout::flat(0);
  auto c = make_compressor("fp16");
  EXPECT_TRUE(c->plan(empty, 4).empty());
  auto res = run_step("fp16", {{}, {}}, empty);
  EXPECT_TRUE(res.calls[0].empty());
  auto r2 = run_step("fp16", {{NAN, 1.0f, 1e6f}, {1.0f, INFINITY, 1.0f}}, BucketLayout::flat(3));
  EXPECT_TRUE(std::isnan(r2.out[1][0]));
  EXPECT_TRUE(std::isinf(r2.out[1][1]));
  EXPECT_TRUE(std::isinf(r2.out[1][2]));  // 5e5 does not fit in half
}

TEST(Fp16, StepWithLocalReturnsOwnContribution) {
  const auto layout = BucketLayout::flat(3);
  LocalGroup g(2);
  g.run([&](Communicator& comm) {
    auto c = make_compressor("fp16");
    std::vector<float> x{1.0f / 3, 2.0f, -5.5f}, local(3), expect(3);
    c->roundtrip(0, x.data(), expect.data(), layout);
    c->step_with_local({0, x.data(), &layout}, comm, local.data());
    EXPECT_EQ(local, expect);
  });
}
