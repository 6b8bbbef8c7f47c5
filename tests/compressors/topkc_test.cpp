// Tests of "topkc" (compressors/topkc.h): agreed chunks, aggregation, plan, edge cases.
#include "compressors/sparse.h"
#include "counting_comm.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
// Reference: chunks chosen by summed squared norms over all ranks; result = sum of the
// ranks' values on those chunks / p.
std::vector<double> topkc_reference(const std::vector<std::vector<float>>& in, double k, int64_t chunk) {
  const int p = static_cast<int>(in.size());
  const int64_t n = static_cast<int64_t>(in[0].size());
  const int64_t m = (n + chunk - 1) / chunk;
  const int64_t C = sparse::kept_count(m, k);
  std::vector<double> norm(m, 0.0);
  for (int r = 0; r < p; ++r)
    for (int64_t i = 0; i < n; ++i) norm[i / chunk] += static_cast<double>(in[r][i]) * in[r][i];
  std::vector<int64_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return norm[a] > norm[b]; });
  std::set<int64_t> chosen(order.begin(), order.begin() + C);
  std::vector<double> out(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    if (chosen.count(i / chunk))
      for (int r = 0; r < p; ++r) out[i] += in[r][i] / static_cast<double>(p);
  return out;
}
}  // namespace

TEST(Topkc, ResultIsSumOverWorkersOfAgreedChunks) {
  for (int p : {1, 2, 4}) {
    for (int64_t n : {int64_t{1000}, int64_t{1024}, int64_t{37}}) {
      const int64_t chunk = 64;
      const auto layout = BucketLayout::flat(n);
      std::vector<std::vector<float>> in;
      for (int r = 0; r < p; ++r) in.push_back(gaussian(n, 7 * r + n, 1.0f, true));
      const std::string spec = "topkc:k=0.25,chunk=64";
      auto res = run_step(spec, in, layout);
      const auto expect = topkc_reference(in, 0.25, chunk);
      auto plan = make_compressor(spec)->plan(layout, p);
      for (int r = 0; r < p; ++r) {
        expect_calls_match_plan(res.calls[r], plan);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_NEAR(res.out[r][i], expect[i], 1e-5) << "p=" << p << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(Topkc, WireBytesFormula) {
  auto c = make_compressor("topkc:k=0.1,chunk=100");
  // n = 1050: m = 11 chunks, C = 2: norms 11 floats + min(200, 1050) values.
  EXPECT_EQ(c->wire_bytes(BucketLayout::flat(1050), 4), 4 * (11 + 200));
  // n = 50 <= chunk: one chunk, all kept: no norms, 50 values.
  EXPECT_EQ(c->wire_bytes(BucketLayout::flat(50), 4), 4 * 50);
  auto all = make_compressor("topkc:k=1,chunk=8");
  EXPECT_EQ(all->plan(BucketLayout::flat(20), 2).size(), 1u);
  EXPECT_TRUE(c->plan(BucketLayout::flat(0), 2).empty());
}

TEST(Topkc, PartialLastChunkChosenIsPaddedToFixedPayload) {
  // n = 10, chunk = 4: chunks [0,4) [4,8) [8,10); C = 1; the partial chunk has the largest norm.
  const auto layout = BucketLayout::flat(10);
  std::vector<float> a(10, 0.1f), b(10, 0.2f);
  a[9] = 50.0f;
  b[8] = 10.0f;
  auto res = run_step("topkc:k=0.3,chunk=4", {a, b}, layout);
  auto plan = make_compressor("topkc:k=0.3,chunk=4")->plan(layout, 2);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1].count, 4);  // min(1 * 4, 10)
  expect_calls_match_plan(res.calls[0], plan);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(res.out[0][i], 0.0f);
  EXPECT_FLOAT_EQ(res.out[1][8], (0.1f + 10.0f) / 2);
  EXPECT_FLOAT_EQ(res.out[1][9], (50.0f + 0.2f) / 2);
}

TEST(Topkc, RoundTripKeepsLargestChunksAndHandlesZerosAndNaN) {
  auto c = make_compressor("topkc:k=0.5,chunk=3");
  std::vector<float> x{1, 1, 1, 5, 5, 5, 0, 0, 0, 2, 2}, y(11);
  c->roundtrip(0, x.data(), y.data(), BucketLayout::flat(11));
  // m = 4 chunks with norms 3, 75, 0, 8; C = 2: chunks 1 and 3.
  std::vector<float> expect{0, 0, 0, 5, 5, 5, 0, 0, 0, 2, 2};
  EXPECT_EQ(y, expect);
  std::vector<float> z(11, 0.0f);
  c->roundtrip(0, z.data(), y.data(), BucketLayout::flat(11));
  for (float v : y) EXPECT_EQ(v, 0.0f);
  x[7] = NAN;
  auto res = run_step("topkc:k=0.25,chunk=3", {x, x}, BucketLayout::flat(11));
  EXPECT_TRUE(std::isnan(res.out[0][7]));
}

TEST(Topkc, SpecAndBadParameters) {
  EXPECT_EQ(make_compressor("topkc")->spec(), "topkc:k=0.01,chunk=256");
  EXPECT_EQ(make_compressor("topkc:chunk=32,k=0.05")->spec(), "topkc:k=0.05,chunk=32");
  EXPECT_THROW(make_compressor("topkc:chunk=0"), CompressorError);
  EXPECT_THROW(make_compressor("topkc:chunk=-4"), CompressorError);
  EXPECT_THROW(make_compressor("topkc:k=1.01"), CompressorError);
}
