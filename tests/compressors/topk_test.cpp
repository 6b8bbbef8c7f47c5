// Tests of "topk" (compressors/topk.h) and the shared selection in compressors/sparse.h.
#include "compressors/sparse.h"
#include "compressors/topk.h"
#include "counting_comm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
std::vector<float> normal_vec(int64_t n, unsigned seed, float sigma = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& e : v) e = d(gen);
  return v;
}
}  // namespace

TEST(Topk, KeepsExactlyKLargestMagnitudes) {
  const int64_t n = 10007;
  auto x = normal_vec(n, 5);
  auto c = make_compressor("topk:k=0.013");
  const int64_t K = sparse::kept_count(n, 0.013);
  std::vector<float> y(n);
  c->roundtrip(0, x.data(), y.data(), BucketLayout::flat(n));
  int64_t kept = 0;
  float min_kept = INFINITY, max_dropped = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] != 0.0f) {
      ++kept;
      EXPECT_EQ(y[i], x[i]);
      min_kept = std::min(min_kept, std::fabs(x[i]));
    } else {
      max_dropped = std::max(max_dropped, std::fabs(x[i]));
    }
  }
  EXPECT_EQ(kept, K);
  EXPECT_GE(min_kept, max_dropped);
}

TEST(Topk, AggregationIsAverageOfScatteredSelectionsAndPlanMatches) {
  for (int p : {1, 2, 4}) {
    const int64_t n = 5003;
    const auto layout = BucketLayout::flat(n);
    std::vector<std::vector<float>> in;
    for (int r = 0; r < p; ++r) in.push_back(normal_vec(n, 100 + r));
    expect_step_is_mean_of_roundtrips("topk:k=0.02", in, layout);
    auto c = make_compressor("topk:k=0.02");
    EXPECT_EQ(c->wire_bytes(layout, p), 8 * sparse::kept_count(n, 0.02));
  }
}

TEST(Topk, EdgeCases) {
  auto c = make_compressor("topk:k=0.5");
  EXPECT_TRUE(c->plan(BucketLayout::flat(0), 2).empty());
  auto r0 = run_step("topk:k=0.5", {{}, {}}, BucketLayout::flat(0));
  EXPECT_TRUE(r0.calls[0].empty());
  // n = 1 with a tiny k keeps one element.
  auto r1 = run_step("topk:k=0.0001", {{3.0f}, {1.0f}}, BucketLayout::flat(1));
  EXPECT_FLOAT_EQ(r1.out[0][0], 2.0f);
  // All zeros: keeps the first K indices (zeros), result is zero, nothing breaks.
  std::vector<float> z(100, 0.0f), y(100, 1.0f);
  c->roundtrip(0, z.data(), y.data(), BucketLayout::flat(100));
  for (float v : y) EXPECT_EQ(v, 0.0f);
  // NaN and Inf are selected first and propagate.
  std::vector<float> x(50, 1.0f);
  x[7] = NAN;
  x[9] = -INFINITY;
  auto r2 = run_step("topk:k=0.04", {x, x}, BucketLayout::flat(50));
  EXPECT_TRUE(std::isnan(r2.out[0][7]));
  EXPECT_TRUE(std::isinf(r2.out[0][9]));
}

TEST(Topk, SpecRoundTripsAndBadParametersAreErrors) {
  EXPECT_EQ(make_compressor("topk")->spec(), "topk:k=0.01");
  EXPECT_EQ(make_compressor("topk:k=0.001")->spec(), "topk:k=0.001");
  EXPECT_EQ(make_compressor(make_compressor("topk:k=0.3")->spec())->spec(), "topk:k=0.3");
  EXPECT_THROW(make_compressor("topk:k=0"), CompressorError);
  EXPECT_THROW(make_compressor("topk:k=2"), CompressorError);
  EXPECT_THROW(make_compressor("topk:k=x"), CompressorError);
  EXPECT_THROW(make_compressor("topk:kk=0.1"), CompressorError);
}
