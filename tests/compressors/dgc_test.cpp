// Tests of "dgc" (compressors/dgc.h): sampled threshold, fixed payload, state.
#include "compressors/dgc.h"
#include "compressors/sparse.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace gcu::compress;
using namespace gcu::compress::testing;

TEST(Dgc, PayloadHasFixedSizeAscendingIndicesAndPadding) {
  const int64_t n = 50000;
  auto x = gaussian(n, 21, 1.0f, true);
  DgcCompressor c(0.01, 0.01, 0);
  const int64_t K = sparse::kept_count(n, 0.01);
  std::vector<float> v(K);
  std::vector<int32_t> idx(K);
  int over = 0, under = 0;
  for (uint64_t t = 0; t < 20; ++t) {
    const int64_t sel = c.select(x.data(), n, 0, t, v.data(), idx.data());
    const int64_t real = std::min(sel, K);
    for (int64_t j = 0; j < real; ++j) {
      ASSERT_EQ(v[j], x[idx[j]]);
      if (j) ASSERT_LT(idx[j - 1], idx[j]);
    }
    for (int64_t j = real; j < K; ++j) ASSERT_TRUE(v[j] == 0.0f && idx[j] == 0);
    if (sel >= K) {
      // Then the selection is exactly top-k.
      std::vector<float> tv(K);
      std::vector<int32_t> ti(K);
      sparse::select_topk(x.data(), n, K, tv.data(), ti.data());
      EXPECT_EQ(ti, idx);
      ++over;
    } else {
      ++under;
    }
  }
  EXPECT_GT(over + under, 0);
}

TEST(Dgc, ErrorIsCloseToTopk) {
  const int64_t n = 100000;
  auto x = gaussian(n, 22, 1.0f, true);
  std::vector<float> yt(n), yd(n);
  make_compressor("topk:k=0.01")->roundtrip(0, x.data(), yt.data(), BucketLayout::flat(n));
  make_compressor("dgc:k=0.01,sample=0.05")->roundtrip(0, x.data(), yd.data(), BucketLayout::flat(n));
  double et = 0, ed = 0;
  for (int64_t i = 0; i < n; ++i) {
    et += (yt[i] - x[i]) * (yt[i] - x[i]);
    ed += (yd[i] - x[i]) * (yd[i] - x[i]);
  }
  EXPECT_GE(ed, et * (1 - 1e-9));
  EXPECT_LE(ed, 1.3 * et);
}

TEST(Dgc, AggregationPlanAndState) {
  for (int p : {1, 2, 4}) {
    const int64_t n = 9000;
    const auto layout = BucketLayout::flat(n);
    std::vector<std::vector<float>> in;
    for (int r = 0; r < p; ++r) in.push_back(gaussian(n, 80 + r));
    auto res = run_step("dgc:k=0.02,seed=4", in, layout, 2);  // second step
    std::vector<double> expect(n, 0.0);
    for (int r = 0; r < p; ++r) {
      auto c = make_compressor("dgc:k=0.02,seed=4");
      std::vector<float> y(n);
      c->roundtrip(0, in[r].data(), y.data(), layout);  // step 0
      c->roundtrip(0, in[r].data(), y.data(), layout);  // step 1
      for (int64_t i = 0; i < n; ++i) expect[i] += y[i] / p;
    }
    auto plan = make_compressor("dgc:k=0.02")->plan(layout, p);
    for (int r = 0; r < p; ++r) {
      expect_calls_match_plan(res.calls[r], plan);
      for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(res.out[r][i], expect[i], 1e-6);
    }
  }
  auto a = make_compressor("dgc:k=0.1");
  auto b = make_compressor("dgc:k=0.1");
  auto x = gaussian(1000, 5);
  std::vector<float> ya(1000), yb(1000);
  a->roundtrip(1, x.data(), ya.data(), BucketLayout::flat(1000));
  b->load_state(a->save_state());
  a->roundtrip(1, x.data(), ya.data(), BucketLayout::flat(1000));
  b->roundtrip(1, x.data(), yb.data(), BucketLayout::flat(1000));
  EXPECT_EQ(ya, yb);
}

TEST(Dgc, EdgeCasesAndSpec) {
  EXPECT_TRUE(make_compressor("dgc")->plan(BucketLayout::flat(0), 2).empty());
  auto c = make_compressor("dgc:k=0.5,sample=1");
  std::vector<float> z(10, 0.0f), y(10, 1.0f);
  c->roundtrip(0, z.data(), y.data(), BucketLayout::flat(10));
  for (float v : y) EXPECT_EQ(v, 0.0f);
  std::vector<float> x(10, 1.0f);
  x[3] = INFINITY;
  c->roundtrip(0, x.data(), y.data(), BucketLayout::flat(10));
  EXPECT_TRUE(std::isinf(y[3]));
  EXPECT_EQ(make_compressor("dgc")->spec(), "dgc:k=0.01,sample=0.01,seed=0");
  EXPECT_THROW(make_compressor("dgc:sample=0"), CompressorError);
}
