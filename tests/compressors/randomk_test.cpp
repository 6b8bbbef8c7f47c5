// Tests of "randomk" (compressors/randomk.h): shared indices, unbiasedness, state.
#include "compressors/randomk.h"
#include "compressors/sparse.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace gcu::compress;
using namespace gcu::compress::testing;

TEST(Randomk, IndicesAreDistinctInRangeAndChangeEveryStep) {
  RandomkCompressor c(0.1, 7, false);
  for (int64_t n : {1, 2, 3, 17, 1000, 4097}) {
    const auto a = c.indices(3, 0, n), b = c.indices(3, 1, n);
    EXPECT_EQ(static_cast<int64_t>(a.size()), sparse::kept_count(n, 0.1));
    std::set<int32_t> s(a.begin(), a.end());
    EXPECT_EQ(s.size(), a.size()) << n;
    for (int32_t i : a) { EXPECT_GE(i, 0); EXPECT_LT(i, n); }
    if (n >= 1000) EXPECT_NE(a, b);
  }
  EXPECT_NE(c.indices(0, 0, 1000), c.indices(1, 0, 1000));  // bucket index matters
}

TEST(Randomk, SelectionFrequencyIsUniform) {
  RandomkCompressor c(0.05, 1, false);
  const int64_t n = 200, steps = 4000;
  std::vector<int> hits(n, 0);
  for (int64_t t = 0; t < steps; ++t)
    for (int32_t i : c.indices(0, t, n)) ++hits[i];
  const double expect = steps * 10.0 / n;  // K = 10
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(hits[i], expect, 6 * std::sqrt(expect)) << i;
}

TEST(Randomk, AllRanksSelectTheSameIndicesAndPlanMatches) {
  for (int p : {1, 2, 4}) {
    const int64_t n = 3001;
    const auto layout = BucketLayout::flat(n);
    std::vector<std::vector<float>> in;
    for (int r = 0; r < p; ++r) {
      in.push_back(gaussian(n, r + 1));
      for (auto& v : in.back()) v = std::fabs(v) + 1.0f;  // never zero
    }
    auto res = run_step("randomk:k=0.03,seed=5", in, layout, 3);  // third step
    RandomkCompressor ref(0.03, 5, false);
    const auto idx = ref.indices(0, 2, n);
    std::set<int32_t> sel(idx.begin(), idx.end());
    auto plan = make_compressor("randomk:k=0.03,seed=5")->plan(layout, p);
    for (int r = 0; r < p; ++r) {
      expect_calls_match_plan(res.calls[r], plan);
      for (int64_t i = 0; i < n; ++i) {
        if (!sel.count(static_cast<int32_t>(i))) { ASSERT_EQ(res.out[r][i], 0.0f); continue; }
        double mean = 0;
        for (int q = 0; q < p; ++q) mean += in[q][i] / p;
        ASSERT_NEAR(res.out[r][i], mean, 1e-5);
      }
    }
  }
}

TEST(Randomk, UnbiasedVariantAveragesToInput) {
  auto c = make_compressor("randomk:k=0.1,unbiased=true");
  EXPECT_FALSE(c->traits().biased);
  const int64_t n = 50, T = 20000;
  auto x = gaussian(n, 3);
  std::vector<double> acc(n, 0.0);
  std::vector<float> y(n);
  for (int64_t t = 0; t < T; ++t) {
    c->roundtrip(0, x.data(), y.data(), BucketLayout::flat(n));
    for (int64_t i = 0; i < n; ++i) acc[i] += y[i];
  }
  // Var of one draw per element = x^2 (n/K - 1) = 9 x^2; standard error over T draws.
  for (int64_t i = 0; i < n; ++i)
    EXPECT_NEAR(acc[i] / T, x[i], 6 * std::fabs(x[i]) * 3.0 / std::sqrt(T) + 1e-6) << i;
}

TEST(Randomk, StateRoundTripResumesTheStream) {
  auto a = make_compressor("randomk:k=0.2,seed=9");
  const int64_t n = 100;
  auto x = gaussian(n, 4);
  std::vector<float> ya(n), yb(n);
  for (int t = 0; t < 3; ++t) a->roundtrip(2, x.data(), ya.data(), BucketLayout::flat(n));
  auto b = make_compressor("randomk:k=0.2,seed=9");
  b->load_state(a->save_state());
  a->roundtrip(2, x.data(), ya.data(), BucketLayout::flat(n));
  b->roundtrip(2, x.data(), yb.data(), BucketLayout::flat(n));
  EXPECT_EQ(ya, yb);
  auto junk = a->save_state();
  junk.pop_back();
  EXPECT_THROW(b->load_state(junk), CompressorError);
  EXPECT_THROW(b->load_state({1, 2, 3}), CompressorError);
}

TEST(Randomk, EdgeCasesAndSpec) {
  EXPECT_TRUE(make_compressor("randomk")->plan(BucketLayout::flat(0), 3).empty());
  auto r1 = run_step("randomk:k=0.001", {{4.0f}, {2.0f}}, BucketLayout::flat(1));
  EXPECT_FLOAT_EQ(r1.out[0][0], 3.0f);  // n = 1: the single element is always kept
  EXPECT_EQ(make_compressor("randomk")->spec(), "randomk:k=0.01,seed=0,unbiased=false");
  EXPECT_EQ(make_compressor("randomk:unbiased=1,seed=3,k=0.5")->spec(),
            "randomk:k=0.5,seed=3,unbiased=true");
  EXPECT_THROW(make_compressor("randomk:seed=-1"), CompressorError);
  EXPECT_THROW(make_compressor("randomk:unbiased=maybe"), CompressorError);
}
