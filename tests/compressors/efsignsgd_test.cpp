#include "compressors/efsignsgd.h"
#include "counting_comm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

TEST(EfSignSgd, ScaledSignAndResidualFollowTheDefinition) {
  auto c = make_compressor("efsignsgd");
  const BucketLayout layout = BucketLayout::flat(4);
  std::vector<float> g{1, -2, 3, -7}, out(4);
  c->roundtrip(0, g.data(), out.data(), layout);  // e = 0: q = g, scale = 13/4
  EXPECT_EQ(out, (std::vector<float>{3.25f, -3.25f, 3.25f, -3.25f}));
  // Second step: q = g + (g - C(g)); C(q) = mean|q| sign(q).
  std::vector<float> q(4);
  double l1 = 0;
  for (int i = 0; i < 4; ++i) { q[i] = g[i] + (g[i] - out[i]); l1 += std::fabs(q[i]); }
  c->roundtrip(0, g.data(), out.data(), layout);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[i], std::copysign(float(l1 / 4), q[i]));
}

TEST(EfSignSgd, ErrorFeedbackMakesTheAverageOfOutputsConverge) {
  // Feeding the same g repeatedly: the mean of C over T steps -> g (residual stays bounded).
  const int64_t n = 100;
  std::mt19937 gen(2);
  std::normal_distribution<float> d;
  std::vector<float> g(n), out(n);
  for (auto& v : g) v = d(gen);
  auto c = make_compressor("efsignsgd");
  const BucketLayout layout = BucketLayout::flat(n);
  std::vector<double> sum(n, 0);
  double gnorm = 0;
  for (float v : g) gnorm += v * v;
  std::vector<double> rel;  // ||mean of C - g|| / ||g|| after 200 and 2000 steps
  for (int t = 1; t <= 2000; ++t) {
    c->roundtrip(3, g.data(), out.data(), layout);
    for (int64_t i = 0; i < n; ++i) sum[i] += out[i];
    if (t == 200 || t == 2000) {
      double err = 0;
      for (int64_t i = 0; i < n; ++i) err += (sum[i] / t - g[i]) * (sum[i] / t - g[i]);
      rel.push_back(std::sqrt(err / gnorm));
    }
  }
  EXPECT_LT(rel[1], 0.05);
  EXPECT_LT(rel[1], rel[0] / 3);  // the residual stays bounded: error ~ 1/T
}

TEST(EfSignSgd, StepAveragesScaledSignsMatchesPlanAndStateRoundTrips) {
  const int p = 3;
  const int64_t n = 130;
  const BucketLayout layout = BucketLayout::flat(n);
  std::vector<std::vector<float>> in(p, std::vector<float>(n));
  for (int r = 0; r < p; ++r)
    for (int64_t i = 0; i < n; ++i) in[r][i] = std::sin(1.0f + i * (r + 1));
  const auto res = run_step("efsignsgd", in, layout);
  auto c = make_compressor("efsignsgd");
  for (int r = 0; r < p; ++r) expect_calls_match_plan(res.calls[r], c->plan(layout, p));
  EXPECT_EQ(c->wire_bytes(layout, p), 8 * (3 + 1));
  for (int64_t i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < p; ++r) {
      double l1 = 0;
      for (float v : in[r]) l1 += std::fabs(v);
      want += std::copysign(l1 / n, in[r][i]) / p;
    }
    ASSERT_NEAR(res.out[0][i], want, 1e-5);
  }
  // Checkpoint: a restored copy continues exactly like the original.
  std::vector<float> o1(n), o2(n);
  c->roundtrip(0, in[0].data(), o1.data(), layout);
  auto d = make_compressor("efsignsgd");
  d->load_state(c->save_state());
  c->roundtrip(0, in[1].data(), o1.data(), layout);
  d->roundtrip(0, in[1].data(), o2.data(), layout);
  EXPECT_EQ(o1, o2);
  EXPECT_THROW(d->load_state({1, 2, 3}), CompressorError);
  auto bytes = c->save_state();
  bytes.pop_back();
  EXPECT_THROW(d->load_state(bytes), CompressorError);
}

TEST(EfSignSgd, EdgeCases) {
  auto c = make_compressor("efsignsgd");
  const BucketLayout l3 = BucketLayout::flat(3), l4 = BucketLayout::flat(4);
  std::vector<float> z(3, 0.0f), out(3);
  c->roundtrip(0, z.data(), out.data(), l3);
  EXPECT_EQ(out, z);  // all zero: scale 0, no division by zero
  std::vector<float> four(4, 1.0f), out4(4);
  EXPECT_THROW(c->roundtrip(0, four.data(), out4.data(), l4), CompressorError);  // size changed
  std::vector<float> bad{1.0f, NAN, 2.0f};
  c->roundtrip(1, bad.data(), out.data(), l3);
  for (float v : out) EXPECT_TRUE(std::isnan(v));
  std::vector<float> ok{1.0f, -1.0f, 1.0f};
  c->roundtrip(1, ok.data(), out.data(), l3);  // residual was reset: finite again
  EXPECT_EQ(out, ok);
  EXPECT_TRUE(run_step("efsignsgd", {{}, {}}, BucketLayout::flat(0)).calls[0].empty());
  EXPECT_THROW(make_compressor("efsignsgd:k=2"), CompressorError);
  EXPECT_TRUE(make_compressor("efsignsgd")->traits().error_feedback);
}
