#include "compressors/bitpack.h"
#include "compressors/qsgd.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
using gcu::compress::testing::gaussian;
}  // namespace

TEST(Qsgd, CodeWidthIsTheSmallestPowerOfTwoWithASignBit) {
  EXPECT_EQ(bits::code_width(1), 2);
  EXPECT_EQ(bits::code_width(7), 4);
  EXPECT_EQ(bits::code_width(8), 8);
  EXPECT_EQ(bits::code_width(127), 8);
  EXPECT_EQ(bits::code_width(128), 16);
  EXPECT_THROW(bits::code_width(0), CompressorError);
}

TEST(Qsgd, UnbiasedOverManySeeds) {
  // Mean of C(x) over many independent draws approaches x (variance / draws).
  for (const char* spec : {"qsgd:levels=3", "qsgd:levels=127", "qsgd:levels=7,bucket=16"}) {
    const int64_t n = 67;
    const auto x = gaussian(n, 3);
    const BucketLayout layout = BucketLayout::flat(n);
    auto c = make_compressor(spec);
    const int draws = 4000;
    std::vector<double> mean(n, 0.0);
    std::vector<float> out(n);
    for (int d = 0; d < draws; ++d) {  // roundtrip advances the per-bucket stream
      c->roundtrip(5, x.data(), out.data(), layout);
      for (int64_t i = 0; i < n; ++i) mean[i] += out[i] / draws;
    }
    double norm = 0;
    for (float v : x) norm += v * v;
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < n; ++i)  // per-draw std <= norm / s; 6 sigma of the mean
      ASSERT_NEAR(mean[i], x[i], 6 * norm / std::sqrt(double(draws)) / 2) << spec << " i=" << i;
  }
}

TEST(Qsgd, StepAveragesDecodedContributionsAndMatchesPlan) {
  const int p = 3;
  const BucketLayout layout{{{4, 5}, {7}, {0}, {3}}};  // several tensors, one empty
  const int64_t n = layout.numel();
  std::vector<std::vector<float>> in;
  for (int r = 0; r < p; ++r) in.push_back(gaussian(n, 11 + r));
  for (const char* spec : {"qsgd:levels=127", "qsgd:levels=1", "qsgd:levels=5,bucket=8"}) {
    const auto res = run_step(spec, in, layout);
    auto c = make_compressor(spec);
    for (int r = 0; r < p; ++r) {
      expect_calls_match_plan(res.calls[r], c->plan(layout, p));
      EXPECT_EQ(res.out[r], res.out[0]);  // identical on every rank
    }
    // Level grid: the average of p quantized values; error per element <= norm/s on average.
    for (int64_t i = 0; i < n; ++i) {
      double avg = 0;
      for (int r = 0; r < p; ++r) avg += in[r][i] / p;
      EXPECT_NEAR(res.out[0][i], avg, 5.0) << spec;
    }
  }
  // S scales (3 non-empty tensors) + codes of 8 bits (4 per word)
  EXPECT_EQ(make_compressor("qsgd")->wire_bytes(layout, p), 4 * (3 + (n + 3) / 4));
  EXPECT_EQ(make_compressor("qsgd:levels=7,bucket=10")->wire_bytes(BucketLayout::flat(25), 2),
            4 * (3 + 4));
}

TEST(Qsgd, ExactForLevelValuesAndSafeOnZerosAndNonFinite) {
  // x = norm * l / s for integer l quantizes without noise.
  const BucketLayout layout = BucketLayout::flat(2);
  std::vector<float> x{3.0f, -4.0f}, out(2);  // norm 5; s = 5 -> levels 3 and 4
  auto c = make_compressor("qsgd:levels=5");
  c->roundtrip(0, x.data(), out.data(), layout);
  EXPECT_FLOAT_EQ(out[0], 3.0f);
  EXPECT_FLOAT_EQ(out[1], -4.0f);
  std::vector<float> z(2, 0.0f);
  c->roundtrip(0, z.data(), out.data(), layout);
  EXPECT_EQ(out, z);
  const auto res = run_step("qsgd", {{1.0f, INFINITY}, {1.0f, 2.0f}}, layout);
  for (int r = 0; r < 2; ++r)
    for (float v : res.out[r]) EXPECT_TRUE(std::isnan(v));
  const auto empty = run_step("qsgd", {{}, {}}, BucketLayout::flat(0));
  EXPECT_TRUE(empty.calls[0].empty());
}

TEST(Qsgd, LocalContributionEqualsOwnDecodedCodes) {
  const BucketLayout layout = BucketLayout::flat(33);
  const auto x = gaussian(33, 5);
  LocalGroup g(1);
  g.run([&](Communicator& comm) {
    auto c = make_compressor("qsgd:levels=3");
    std::vector<float> data = x, local(33);
    c->step_with_local({0, data.data(), &layout}, comm, local.data());
    EXPECT_EQ(local, data);  // one rank: the average is its own contribution
  });
}

TEST(Qsgd, SpecRoundTripsAndBadParamsThrow) {
  EXPECT_EQ(make_compressor("qsgd")->spec(), "qsgd:levels=127");
  EXPECT_EQ(make_compressor("qsgd:seed=3,bucket=512,levels=15")->spec(),
            "qsgd:levels=15,bucket=512,seed=3");
  EXPECT_THROW(make_compressor("qsgd:levels=0"), CompressorError);
  EXPECT_THROW(make_compressor("qsgd:levels=40000"), CompressorError);
  EXPECT_THROW(make_compressor("qsgd:bucket=-1"), CompressorError);
  EXPECT_THROW(make_compressor("qsgd:bits=4"), CompressorError);
  EXPECT_FALSE(make_compressor("qsgd")->traits().biased);
}

TEST(Qsgd, LargeBucketsTakeTheParallelPathsAndStayExactOnTheGrid) {
  // n above the OpenMP threshold; every 4-element block is (3, -4, 0, 0) * c: norm 5c and
  // levels 3 and 4 of s = 5 (4-bit codes), or (c, 0, 0, 0) for s = 1 (2-bit codes).
  const int64_t n = 200003;
  const BucketLayout layout = BucketLayout::flat(n);
  for (const char* spec : {"qsgd:levels=5,bucket=4", "qsgd:levels=1,bucket=4", "terngrad:bucket=4",
                           "qsgd:levels=127,bucket=4"}) {
    const bool five = std::string(spec).find("levels=5") != std::string::npos;
    std::vector<float> x(n, 0.0f), out(n);
    for (int64_t b = 0; b + 4 <= n; b += 4) {
      const float c = 1.0f + static_cast<float>(b % 7);
      if (five) { x[b] = 3 * c; x[b + 1] = -4 * c; }
      else x[b] = (b % 8 ? -c : c);
    }
    auto comp = make_compressor(spec);
    comp->roundtrip(0, x.data(), out.data(), layout);
    if (std::string(spec).find("127") != std::string::npos) {
      for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], x[i], 0.2f * std::fabs(x[i]) + 1e-6) << spec << i;
    } else {
      for (int64_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], x[i]) << spec << " i=" << i;
    }
  }
}

// fuzz/corpus/scheme/regress-qsgd-inf-to-int: a segment of subnormal values has a scale so small
// that s / scale overflows float; a * inf (Inf, or NaN for a = 0) was converted to int
// (UB; in practice level s for every element, zeros included).
TEST(Qsgd, SubnormalSegmentsGiveBoundedLevelsAndKeepZeros) {
  const std::vector<float> x = {1e-40f, 0.0f, -3e-41f, 0.0f, 2e-41f};
  const BucketLayout layout = BucketLayout::flat(static_cast<int64_t>(x.size()));
  for (const char* spec : {"qsgd:levels=127", "qsgd:levels=3", "qsgd:levels=200", "terngrad"}) {
    auto c = make_compressor(spec);
    std::vector<float> out(x.size(), 1.0f);
    for (int rep = 0; rep < 3; ++rep) {
      c->roundtrip(0, x.data(), out.data(), layout);
      EXPECT_EQ(out[1], 0.0f) << spec;
      EXPECT_EQ(out[3], 0.0f) << spec;
      for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_TRUE(std::isfinite(out[i])) << spec << " i=" << i;
        EXPECT_LE(std::fabs(out[i]), 2e-40f) << spec << " i=" << i;
        EXPECT_FALSE(out[i] != 0 && std::signbit(out[i]) != std::signbit(x[i])) << spec << " i=" << i;
      }
    }
  }
}
