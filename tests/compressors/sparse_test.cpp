// Tests of the shared sparsification helpers (compressors/sparse.h): kept count,
// magnitude order, radix top-k selection against the nth_element reference, scatter-add.
#include "compressors/sparse.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace gcu::compress;
using namespace gcu::compress::testing;

TEST(Sparse, KeptCountIsCeilClampedToOneAndN) {
  EXPECT_EQ(sparse::kept_count(0, 0.5), 0);
  EXPECT_EQ(sparse::kept_count(100, 0.01), 1);  // 0.01 * 100 is 1.0000000000000002 in double
  EXPECT_EQ(sparse::kept_count(101, 0.01), 2);
  EXPECT_EQ(sparse::kept_count(5, 0.001), 1);
  EXPECT_EQ(sparse::kept_count(7, 1.0), 7);
  EXPECT_EQ(sparse::kept_count(25557032, 0.001), 25558);
}

TEST(Sparse, RadixSelectEqualsReferenceIncludingTies) {
  for (int64_t n : {5000, 100000, 300000}) {
    auto x = gaussian(n, static_cast<unsigned>(n));
    for (int64_t i = 0; i < n; i += 7) x[i] = 0.5f;  // many ties
    for (int64_t i = 3; i < n; i += 11) x[i] = -0.5f;
    for (int64_t k : {int64_t{1}, n / 100, n / 3, n - 1, n}) {
      std::vector<float> v1(k), v2(k);
      std::vector<int32_t> i1(k), i2(k);
      sparse::select_topk(x.data(), n, k, v1.data(), i1.data());
      sparse::select_topk_reference(x.data(), n, k, v2.data(), i2.data());
      ASSERT_EQ(i1, i2) << "n=" << n << " k=" << k;
      ASSERT_EQ(v1, v2);
    }
  }
}

TEST(Sparse, MagnitudeOrderPutsNaNAboveInfAndIgnoresSign) {
  EXPECT_EQ(sparse::mag_key(-0.0f), sparse::mag_key(0.0f));
  EXPECT_EQ(sparse::mag_key(-3.0f), sparse::mag_key(3.0f));
  EXPECT_LT(sparse::mag_key(2.0f), sparse::mag_key(-2.5f));
  EXPECT_LT(sparse::mag_key(3.4e38f), sparse::mag_key(-INFINITY));
  EXPECT_LT(sparse::mag_key(INFINITY), sparse::mag_key(NAN));
}

TEST(Sparse, ScatterAddSumsDuplicatesAndZeroesTheRest) {
  const float v[] = {1.0f, 2.0f, 4.0f};
  const int32_t i[] = {3, 0, 3};
  std::vector<float> out(5, 9.0f);
  sparse::scatter_add(v, i, 3, out.data(), 5, 0.5f);
  EXPECT_EQ(out, (std::vector<float>{1.0f, 0.0f, 0.0f, 2.5f, 0.0f}));
  EXPECT_THROW(sparse::check_int32_range("topk", 7, int64_t{1} << 31), CompressorError);
  EXPECT_NO_THROW(sparse::check_int32_range("topk", 7, (int64_t{1} << 31) - 1));
}
