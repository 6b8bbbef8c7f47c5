#include "compressors/hadamard.h"
#include "compressors/thc.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
using gcu::compress::testing::gaussian;
}  // namespace

TEST(Hadamard, PartialStagesEqualTheKroneckerMatrixAndAreAnInvolutionUpTo2PowT) {
  const int64_t block = 64, m = 128;  // t up to 6: the fused 8-point, two-stage and single-stage paths
  const auto x = gaussian(m, 1);
  for (int t : {0, 1, 2, 3, 4, 5, 6}) {
    std::vector<float> y = x;
    fwht_blocks(y.data(), m, block, t);
    const int64_t mask = (int64_t{1} << t) - 1;
    for (int64_t i = 0; i < m; ++i) {
      double want = 0;  // H_t[i][j] = (-1)^popcount(i & j & mask) when i, j differ only in low t bits
      for (int64_t j = 0; j < m; ++j)
        if ((i & ~mask) == (j & ~mask)) want += (std::popcount(uint64_t(i & j & mask)) % 2 ? -1 : 1) * x[j];
      ASSERT_NEAR(y[i], want, 1e-4) << "t=" << t << " i=" << i;
    }
    fwht_blocks(y.data(), m, block, t);
    for (int64_t i = 0; i < m; ++i) ASSERT_NEAR(y[i], x[i] * (1 << t), 1e-4);
  }
}

TEST(Thc, LaneWidthHoldsThePRankSumOfTheLargestLevel) {
  ThcParams p;  // 4 bits: G = 15
  EXPECT_EQ(ThcGeometry::of(p, 100, 1).lane_bits, 4);
  EXPECT_EQ(ThcGeometry::of(p, 100, 4).lane_bits, 6);
  EXPECT_EQ(ThcGeometry::of(p, 100, 17).lane_bits, 8);   // 255
  EXPECT_EQ(ThcGeometry::of(p, 100, 18).lane_bits, 9);   // 270
  const auto g = ThcGeometry::of(p, 100, 5);             // 75 -> 7 bits, 9 lanes per word
  EXPECT_EQ(g.lanes_per_word, 9);
  EXPECT_EQ(g.L, 128);
  EXPECT_EQ(g.words, (128 + 8) / 9);
  const auto big = ThcGeometry::of(p, 200000, 2);  // 4 blocks of 65536
  EXPECT_EQ(big.m, 4 * 65536);
  EXPECT_EQ(big.stages, 16);
}

TEST(Thc, IntegerSumNeverOverflowsAtTheWorstCaseForTheStatedP) {
  // rot=0 and every rank at +c everywhere: every level is G on every rank, so every lane
  // sums to exactly p * G; a carry into the next lane would change the decoded values.
  for (int p : {1, 5, 16, 17, 18}) {
    for (const char* spec : {"thc:bits=4,rot=0", "thc:bits=2,rot=0", "thc:bits=8,rot=0"}) {
      const int64_t n = 77;
      const BucketLayout layout = BucketLayout::flat(n);
      std::vector<std::vector<float>> in(p, std::vector<float>(n, 0.75f));
      auto res = run_step(spec, in, layout);
      for (float v : res.out[p - 1]) ASSERT_FLOAT_EQ(v, 0.75f) << spec << " p=" << p;
      for (auto& v : in) std::fill(v.begin(), v.end(), -0.75f);  // all levels 0
      res = run_step(spec, in, layout);
      for (float v : res.out[0]) ASSERT_FLOAT_EQ(v, -0.75f) << spec << " p=" << p;
      expect_calls_match_plan(res.calls[0], make_compressor(spec)->plan(layout, p));
    }
  }
}

TEST(Thc, UnbiasedWithFullAndPartialRotation) {
  const int64_t n = 37;  // padded to 64
  const auto x = gaussian(n, 4);
  const BucketLayout layout = BucketLayout::flat(n);
  for (const char* spec : {"thc:bits=2,rot=full", "thc:bits=4,rot=2", "thc:bits=3,rot=0"}) {
    auto c = make_compressor(spec);
    const int draws = 3000;
    std::vector<double> s1(n, 0), s2(n, 0);
    std::vector<float> out(n);
    for (int d = 0; d < draws; ++d) {
      c->roundtrip(0, x.data(), out.data(), layout);
      for (int64_t i = 0; i < n; ++i) { s1[i] += out[i]; s2[i] += double(out[i]) * out[i]; }
    }
    for (int64_t i = 0; i < n; ++i) {
      const double mean = s1[i] / draws, var = std::max(0.0, s2[i] / draws - mean * mean);
      ASSERT_NEAR(mean, x[i], 6 * std::sqrt(var / draws) + 1e-5) << spec << " i=" << i;
    }
  }
}

TEST(Thc, FineGridIsAccurateAndStepAveragesTheLocalContributions) {
  const int p = 3;
  const BucketLayout layout{{{10, 10}, {30}}};
  const int64_t n = layout.numel();
  std::vector<std::vector<float>> in;
  for (int r = 0; r < p; ++r) in.push_back(gaussian(n, 20 + r));
  for (const char* spec : {"thc:bits=12,rot=full", "thc:bits=12,rot=3,block=32"}) {
    std::vector<std::unique_ptr<Compressor>> comps;
    for (int r = 0; r < p; ++r) comps.push_back(make_compressor(spec));
    std::vector<std::vector<float>> out = in, local(p, std::vector<float>(n));
    LocalGroup g(p);
    g.run([&](Communicator& c) {
      CountingComm cc(c);
      comps[c.rank()]->step_with_local({0, out[c.rank()].data(), &layout}, cc, local[c.rank()].data());
      expect_calls_match_plan(cc.calls, comps[c.rank()]->plan(layout, p));
    });
    for (int64_t i = 0; i < n; ++i) {
      double avg_in = 0, avg_local = 0;
      for (int r = 0; r < p; ++r) { avg_in += in[r][i] / p; avg_local += local[r][i] / p; }
      EXPECT_NEAR(out[1][i], avg_local, 1e-4) << spec;
      EXPECT_NEAR(out[1][i], avg_in, 0.02) << spec;  // 12 bits over a few sigma
      EXPECT_EQ(out[0][i], out[2][i]);
    }
  }
  const ThcGeometry geo = ThcGeometry::of(ThcParams{}, n, p);  // 130 -> 256, 6-bit lanes
  EXPECT_EQ(make_compressor("thc")->wire_bytes(layout, p), 4 + 8 * ((256 + 9) / 10));
  EXPECT_EQ(geo.lanes_per_word, 10);
}

TEST(Thc, SaturationClipsOutliersAndIsBiased) {
  const int64_t n = 64;
  std::vector<float> x(n, 0.01f), out(n);
  x[5] = 100.0f;
  const BucketLayout layout = BucketLayout::flat(n);
  auto c = make_compressor("thc:bits=8,sat=1,rot=0");
  EXPECT_TRUE(c->traits().biased);
  c->roundtrip(0, x.data(), out.data(), layout);
  const float rms = std::sqrt((100.0f * 100.0f + 63 * 1e-4f) / 64);
  EXPECT_NEAR(out[5], rms, 1e-3 * rms);  // clipped at 1 x RMS
  for (float v : out) EXPECT_TRUE(std::isfinite(v));
  EXPECT_FALSE(make_compressor("thc")->traits().biased);
}

TEST(Thc, EdgeCases) {
  const BucketLayout l1 = BucketLayout::flat(1), l5 = BucketLayout::flat(5);
  auto res = run_step("thc", {{0.5f}, {1.5f}}, l1);  // n = 1: no butterfly stage
  EXPECT_NEAR(res.out[0][0], 1.0f, 0.15f);
  res = run_step("thc", {std::vector<float>(5, 0.0f), std::vector<float>(5, 0.0f)}, l5);
  EXPECT_EQ(res.out[1], std::vector<float>(5, 0.0f));  // R = 0: no division by zero
  res = run_step("thc", {{1, 2, 3, 4, INFINITY}, {1, 2, 3, 4, 5}}, l5);
  for (int r = 0; r < 2; ++r)
    for (float v : res.out[r]) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(res.calls[0].size(), 2u);  // same collectives as usual: no rank is left waiting
  EXPECT_TRUE(run_step("thc", {{}, {}}, BucketLayout::flat(0)).calls[0].empty());
}

// Found by the scheme fuzzer: a bucket of subnormal values has a range
// R so small that G / (2R) overflows float, and (y + R) * inf was converted to int (UB).
TEST(Thc, SubnormalRangeGivesFiniteBoundedOutput) {
  const BucketLayout l = BucketLayout::flat(64);
  for (const char* spec : {"thc", "thc:block=64", "thc:bits=8"}) {
    std::vector<float> a(64), b(64);
    for (int i = 0; i < 64; ++i) {
      a[i] = (i % 3 ? 1 : -1) * 1e-42f * static_cast<float>(i % 7);
      b[i] = (i % 2 ? -1 : 1) * 3e-43f;
    }
    const auto res = run_step(spec, {a, b}, l);
    for (int r = 0; r < 2; ++r)
      for (float v : res.out[r]) {
        ASSERT_TRUE(std::isfinite(v)) << spec;
        EXPECT_LE(std::fabs(v), 1e-38f) << spec;
      }
  }
}

TEST(Thc, SpecRoundTripsAndBadParamsThrow) {
  EXPECT_EQ(make_compressor("thc")->spec(), "thc:bits=4,rot=full");
  EXPECT_EQ(make_compressor("thc:rot=3,sat=2.5,bits=2,block=1024,seed=9")->spec(),
            "thc:bits=2,sat=2.5,rot=3,block=1024,seed=9");
  for (const char* bad : {"thc:bits=0", "thc:bits=17", "thc:sat=-1", "thc:rot=half", "thc:rot=-2",
                          "thc:block=1000", "thc:block=1", "thc:levels=4"})
    EXPECT_THROW(make_compressor(bad), CompressorError) << bad;
}
