#include "compressors/bitpack.h"
#include "compressors/signsgd.h"
#include "counting_comm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
std::vector<std::vector<float>> random_inputs(int p, int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<std::vector<float>> x(p, std::vector<float>(n));
  for (auto& v : x)
    for (auto& e : v) e = d(gen);
  return x;
}
}  // namespace

TEST(SignSgd, PackedBitsFollowTheWireLayout) {
  std::vector<float> x(70, 1.0f);
  x[0] = -1.0f; x[63] = -0.0f; x[64] = -3.0f; x[69] = -2.0f;
  std::vector<uint64_t> w(bits::sign_words(70));
  const double sum = bits::pack_signs(x.data(), 70, w.data());
  EXPECT_EQ(w[0], 1ull | (1ull << 63));
  EXPECT_EQ(w[1], 1ull | (1ull << 5));  // unused high bits are zero
  EXPECT_DOUBLE_EQ(sum, 66 * 1.0 + 1 + 0 + 3 + 2);
}

TEST(SignSgd, ResultIsTheMajorityVoteScaledByMeanAbs) {
  for (int p : {1, 3, 4}) {
    const int64_t n = 1000 + p;  // not a multiple of 64
    const auto in = random_inputs(p, n, 7 + p);
    const BucketLayout layout = BucketLayout::flat(n);
    const auto res = run_step("signsgd", in, layout);
    double S = 0;
    for (int r = 0; r < p; ++r) {
      double a = 0;
      for (float v : in[r]) a += std::fabs(v);
      S += a / n;
    }
    S /= p;
    for (int r = 0; r < p; ++r) {
      expect_calls_match_plan(res.calls[r], make_compressor("signsgd")->plan(layout, p));
      for (int64_t i = 0; i < n; ++i) {
        int neg = 0;
        for (int q = 0; q < p; ++q) neg += std::signbit(in[q][i]);
        const double want = 2 * neg > p ? -S : (2 * neg < p ? S : 0.0);
        ASSERT_NEAR(res.out[r][i], want, 1e-5) << "p=" << p << " i=" << i;
      }
    }
  }
}

TEST(SignSgd, UnscaledGivesPlusMinusOneAndZeroOnTies) {
  const BucketLayout layout = BucketLayout::flat(3);
  const auto res = run_step("signsgd:scaled=false", {{1, -1, -5}, {2, 1, -1}}, layout);
  EXPECT_EQ(res.out[0], (std::vector<float>{1, 0, -1}));
  EXPECT_EQ(res.out[1], res.out[0]);
}

TEST(SignSgd, PlanIsExactForTinyAndEmptyBuckets) {
  auto c = make_compressor("signsgd");
  EXPECT_TRUE(c->plan(BucketLayout::flat(0), 4).empty());
  EXPECT_EQ(c->wire_bytes(BucketLayout::flat(1), 4), 16);
  EXPECT_EQ(c->wire_bytes(BucketLayout::flat(64), 4), 16);
  EXPECT_EQ(c->wire_bytes(BucketLayout::flat(65), 4), 24);
  const BucketLayout empty = BucketLayout::flat(0);
  const auto res = run_step("signsgd", {{}, {}}, empty);
  EXPECT_TRUE(res.calls[0].empty());
}

TEST(SignSgd, AllZeroGivesZeroAndNonFiniteGivesNaNEverywhere) {
  const BucketLayout layout = BucketLayout::flat(5);
  auto res = run_step("signsgd", {std::vector<float>(5, 0.0f), std::vector<float>(5, 0.0f)}, layout);
  for (float v : res.out[1]) EXPECT_EQ(v, 0.0f);
  res = run_step("signsgd:scaled=false", {{1, 2, NAN, 4, 5}, {1, 2, 3, 4, 5}}, layout);
  for (int r = 0; r < 2; ++r)
    for (float v : res.out[r]) EXPECT_TRUE(std::isnan(v));
}

TEST(SignSgd, RoundtripAndLocalAreOwnSignTimesOwnScale) {
  auto c = make_compressor("signsgd");
  const BucketLayout layout = BucketLayout::flat(4);
  std::vector<float> in{1, -2, 3, -6}, out(4);
  c->roundtrip(0, in.data(), out.data(), layout);
  EXPECT_EQ(out, (std::vector<float>{3, -3, 3, -3}));
}

TEST(SignSgd, SpecRoundTripsAndBadParamsThrow) {
  EXPECT_EQ(make_compressor("signsgd:scaled=off")->spec(), "signsgd:scaled=false");
  EXPECT_EQ(make_compressor("signsgd")->spec(), "signsgd");
  EXPECT_THROW(make_compressor("signsgd:scaled=maybe"), CompressorError);
  EXPECT_THROW(make_compressor("signsgd:k=1"), CompressorError);
  EXPECT_TRUE(make_compressor("signsgd")->traits().biased);
}
