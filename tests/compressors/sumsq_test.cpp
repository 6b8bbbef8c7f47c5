// The sum-of-squares order shared by the CPU and the GPU (compressors/sumsq.h,
// compressors/cuda/sumsq.cuh; issue 14 finding 1). Without a GPU, this file shows on the
// CPU that the order the CUDA kernels implement (emulated here lane by lane, warp by warp,
// block by block) gives exactly the CPU schemes' scales, that the CPU's result no longer
// depends on the SIMD width or the OpenMP thread count, and what happens near 1e18.
#include "compressors/bitpack.h"
#include "compressors/registry.h"
#include "compressors/sumsq.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gcu::compress;

namespace {
uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// compressors/cuda/sumsq.cuh warp_run_sumsq(), one warp emulated: lane t holds element
// s + t of each 32-element window; lane j < 16 adds element s + j, then s + j + 16
// (__shfl_down_sync by 16); padding is +0.0f; then lanes fold by 8, 4, 2, 1.
float gpu_warp_run(const float* x, int64_t b, int64_t e) {
  float acc[32] = {};
  for (int64_t s = b; s < e; s += 32) {
    float sq[32];
    for (int t = 0; t < 32; ++t) {
      const float v = s + t < e ? x[s + t] : 0.0f;
      sq[t] = v * v;
    }
    for (int t = 0; t < 16; ++t) acc[t] = (acc[t] + sq[t]) + sq[t + 16];
  }
  for (int w = 8; w > 0; w >>= 1) {
    float o[32];
    for (int t = 0; t < 32; ++t) o[t] = t + w < 32 ? acc[t + w] : acc[t];
    for (int t = 0; t < w; ++t) acc[t] = acc[t] + o[t];
  }
  return acc[0];
}

// compressors/cuda/levels.cu: tiles of sumsq::kChunk from each segment start; per tile,
// thread 0 adds the warps' run partials in double, in order; per segment, one thread
// adds the tile totals in double, in order; sqrt in double, rounded to float.
float gpu_segment_norm(const std::vector<float>& x, int64_t b, int64_t e) {
  double seg = 0;
  for (int64_t t = b; t < e; t += sumsq::kChunk) {
    const int64_t te = std::min(e, t + sumsq::kChunk);
    double tile = 0;
    for (int64_t r = t; r < te; r += sumsq::kRun) tile += gpu_warp_run(x.data(), r, std::min(te, r + sumsq::kRun));
    seg += tile;
  }
  return std::isfinite(seg) ? static_cast<float>(std::sqrt(seg)) : std::numeric_limits<float>::quiet_NaN();
}

// The order compressors/cuda/levels.cu and thc.cu used before: squares summed in double
// per element (any order: exact enough), the cause of finding 1.
float old_gpu_norm(const std::vector<float>& x, int64_t b, int64_t e) {
  double s = 0;
  for (int64_t i = b; i < e; ++i) s += static_cast<double>(x[i]) * x[i];
  return static_cast<float>(std::sqrt(s));
}

std::vector<float> roundtrip(const std::string& spec, const BucketLayout& layout, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  make_compressor(spec)->roundtrip(0, x.data(), y.data(), layout);
  return y;
}
}  // namespace

TEST(Sumsq, GpuWarpOrderEqualsCpuRunPartial) {
  for (int64_t len : {1, 15, 16, 17, 31, 32, 33, 100, 511, 1000, 1023, 1024}) {
    for (unsigned seed = 0; seed < 20; ++seed) {
      auto x = gcu::compress::testing::gaussian(len, seed, 1.0f, true);
      if (seed % 3 == 0) x[len / 2] = 3e-39f;  // a denormal square rounds to 0 on both
      EXPECT_EQ(float_bits(gpu_warp_run(x.data(), 0, len)), float_bits(sumsq::run_partial(x.data(), 0, len)))
          << "run of " << len << " elements, seed " << seed;
    }
  }
}

TEST(Sumsq, GpuSegmentNormsEqualQsgdScalesBitForBit) {
  // Per tensor (segments of 1, 5000, 70000 and 32768 + 1 elements: several tiles) and
  // fixed-size segments.
  const BucketLayout layout{{{1}, {50, 100}, {70000}, {32769}}};
  const auto x = gcu::compress::testing::gaussian(layout.numel(), 7, 0.01f, true);
  for (int64_t block : {int64_t{0}, int64_t{1000}, int64_t{40000}}) {
    const auto seg = bits::segments_for(layout, block);
    std::vector<float> cpu(seg.size() - 1);
    bits::segment_scales(x.data(), seg, true, cpu.data());
    for (size_t k = 0; k + 1 < seg.size(); ++k) {
      EXPECT_EQ(float_bits(cpu[k]), float_bits(gpu_segment_norm(x, seg[k], seg[k + 1])))
          << "segment " << k << " of block " << block;
      EXPECT_EQ(static_cast<float>(std::sqrt(sumsq::total(x.data(), seg[k], seg[k + 1]))), cpu[k]);
    }
  }
}

TEST(Sumsq, CpuScalesDoNotDependOnTheThreadCount) {
#ifdef _OPENMP
  const int64_t n = 300000;  // above the OpenMP threshold: chunks summed by several threads
  const auto x = gcu::compress::testing::gaussian(n, 3, 1.0f, true);
  const BucketLayout layout = BucketLayout::flat(n);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto q1 = roundtrip("qsgd", layout, x), t1 = roundtrip("thc:sat=2", layout, x);
  omp_set_num_threads(4);
  const auto q4 = roundtrip("qsgd", layout, x), t4 = roundtrip("thc:sat=2", layout, x);
  omp_set_num_threads(saved);
  EXPECT_EQ(0, std::memcmp(q1.data(), q4.data(), n * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(t1.data(), t4.data(), n * sizeof(float)));
#else
  GTEST_SKIP() << "built without OpenMP: one thread only";
#endif
}

// 1024 elements of 1e18: each square (1e36) fits a float, their float run partial
// (1.024e39) does not. The CPU (and now the GPU) scale is then not finite and the bucket
// decodes to NaN; the old double-per-element GPU sum gave a finite norm instead.
TEST(Sumsq, NormOverflowingAFloatRunGivesNanOnCpuAndGpuOrder) {
  std::vector<float> x(2048, 1e18f);
  EXPECT_TRUE(std::isinf(sumsq::run_partial(x.data(), 0, 1024)));
  EXPECT_TRUE(std::isnan(gpu_segment_norm(x, 0, 2048)));
  EXPECT_TRUE(std::isfinite(old_gpu_norm(x, 0, 2048)));  // what finding 1 reported
  for (float v : roundtrip("qsgd", BucketLayout::flat(2048), x)) ASSERT_TRUE(std::isnan(v));
  for (float v : roundtrip("thc:sat=2,rot=0", BucketLayout::flat(2048), x)) ASSERT_TRUE(std::isnan(v));
  // Below the overflow (1e17: partials ~1e37) everything is finite.
  std::vector<float> y(2048, 1e17f);
  EXPECT_TRUE(std::isfinite(gpu_segment_norm(y, 0, 2048)));
  for (float v : roundtrip("qsgd", BucketLayout::flat(2048), y)) ASSERT_TRUE(std::isfinite(v));
}
