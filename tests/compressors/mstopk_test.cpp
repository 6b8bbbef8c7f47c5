// Tests of "mstopk" (compressors/mstopk.h): exact count, near-top-k quality, wire format.
#include "compressors/mstopk.h"
#include "compressors/sparse.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
double sq_err(const std::vector<float>& x, const std::vector<float>& y) {
  double e = 0;
  for (size_t i = 0; i < x.size(); ++i) e += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
  return e;
}
}  // namespace

TEST(Mstopk, SendsExactlyKDistinctAscendingIndices) {
  for (int64_t n : {int64_t{10}, int64_t{1000}, int64_t{200000}}) {
    auto x = gaussian(n, static_cast<unsigned>(n), 1.0f, true);
    MstopkCompressor c(0.01, 20);
    const int64_t K = sparse::kept_count(n, 0.01);
    std::vector<float> v(K);
    std::vector<int32_t> idx(K);
    c.select(x.data(), n, v.data(), idx.data());
    for (int64_t j = 0; j < K; ++j) {
      ASSERT_EQ(v[j], x[idx[j]]);
      if (j) ASSERT_LT(idx[j - 1], idx[j]);
    }
  }
}

TEST(Mstopk, ManyIterationsGiveTheTopKSetAndFewGiveANearTopKError) {
  const int64_t n = 100000;
  auto x = gaussian(n, 11, 1.0f, true);
  std::vector<float> yt(n), y30(n), y5(n);
  make_compressor("topk:k=0.01")->roundtrip(0, x.data(), yt.data(), BucketLayout::flat(n));
  make_compressor("mstopk:k=0.01,iters=40")->roundtrip(0, x.data(), y30.data(), BucketLayout::flat(n));
  make_compressor("mstopk:k=0.01,iters=5")->roundtrip(0, x.data(), y5.data(), BucketLayout::flat(n));
  EXPECT_EQ(y30, yt);  // 40 halvings resolve the threshold between distinct floats
  const double et = sq_err(x, yt), e5 = sq_err(x, y5);
  EXPECT_GE(e5, et);
  EXPECT_LE(e5, 1.2 * et);
}

TEST(Mstopk, AggregationAndPlanMatchCountedCalls) {
  for (int p : {1, 2, 4}) {
    const int64_t n = 20000;
    const auto layout = BucketLayout::flat(n);
    std::vector<std::vector<float>> in;
    for (int r = 0; r < p; ++r) in.push_back(gaussian(n, 50 + r));
    expect_step_is_mean_of_roundtrips("mstopk:k=0.01", in, layout);
    auto c = make_compressor("mstopk:k=0.01");
    EXPECT_EQ(c->wire_bytes(layout, p), 8 * 200);
  }
}

TEST(Mstopk, EdgeCases) {
  auto c = make_compressor("mstopk:k=0.1");
  EXPECT_TRUE(c->plan(BucketLayout::flat(0), 2).empty());
  std::vector<float> z(30, 0.0f), y(30, 1.0f);
  c->roundtrip(0, z.data(), y.data(), BucketLayout::flat(30));
  for (float v : y) EXPECT_EQ(v, 0.0f);
  std::vector<float> same(30, -2.0f);  // all magnitudes equal: first K indices
  c->roundtrip(0, same.data(), y.data(), BucketLayout::flat(30));
  EXPECT_EQ(std::count(y.begin(), y.end(), -2.0f), 3);
  EXPECT_EQ(y[0], -2.0f);
  auto x = gaussian(100, 1);
  x[42] = NAN;
  y.assign(100, 1.0f);
  c->roundtrip(0, x.data(), y.data(), BucketLayout::flat(100));
  EXPECT_TRUE(std::isnan(y[42]));
  EXPECT_EQ(make_compressor("mstopk")->spec(), "mstopk:k=0.01,iters=20");
  EXPECT_THROW(make_compressor("mstopk:iters=0"), CompressorError);
  EXPECT_NO_THROW(make_compressor("mstopk:iters=64"));
  // Found by the scheme fuzzer: iters=338933892 ran for minutes; passes beyond 64 change nothing.
  EXPECT_THROW(make_compressor("mstopk:iters=65"), CompressorError);
  EXPECT_THROW(make_compressor("mstopk:k=1,iters=338933892"), CompressorError);
}
