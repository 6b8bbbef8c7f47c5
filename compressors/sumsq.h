// The one summation order of the float sums of squares that the CPU and CUDA versions
// must agree on bit for bit: qsgd's per-segment L2 norms (bitpack.cpp) and thc's RMS
// for saturation (thc.cpp); compressors/cuda/sumsq.cuh is the device twin. Derivation
// and tests: docs/compressors_cuda.md, "Sum of squares".
//
//  - a range [b, e) is cut into runs of kRun = 1024 elements from b;
//  - inside a run, kLanes = 16 float accumulators: element b + 1024 r + j goes to lane
//    j % 16; each lane adds its elements in index order, the square rounded to float
//    before the add (callers compile with -ffp-contract=off: no FMA);
//  - the lanes fold pairwise, lane j += lane j + w for w = 8, 4, 2, 1: the run's float
//    partial (so the order does not depend on the SIMD width: SSE, AVX2, AVX-512 and a
//    CUDA warp give the same bits);
//  - run partials are added in double, in order, per chunk of kChunk = 32 runs (32768
//    elements from b); chunk totals are added in double, in order.
// A float run partial overflows to +Inf above ~3.4e38 (e.g. 1024 elements of 1e18): the
// total is then not finite and the schemes treat the scale as non-finite (NaN output),
// on the CPU and on the GPU alike.
#pragma once

#include <algorithm>
#include <cstdint>

namespace gcu::compress::sumsq {

constexpr int64_t kRun = 1024;
constexpr int kLanes = 16;
constexpr int64_t kChunk = 32 * kRun;

// Float partial of one run x[b, e), e - b <= kRun.
inline float run_partial(const float* x, int64_t b, int64_t e) {
  float acc[kLanes] = {};
  int64_t i = b;
  for (; i + kLanes <= e; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float sq = x[i + j] * x[i + j];
      acc[j] += sq;
    }
  for (int j = 0; i + j < e; ++j) {
    const float sq = x[i + j] * x[i + j];
    acc[j] += sq;
  }
  for (int w = kLanes / 2; w > 0; w >>= 1)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}

// Double total of one chunk x[b, e), e - b <= kChunk (run partials in order).
inline double chunk_total(const float* x, int64_t b, int64_t e) {
  double total = 0;
  for (int64_t s = b; s < e; s += kRun) total += run_partial(x, s, std::min(e, s + kRun));
  return total;
}

// Reference: the whole range, chunk totals added in order (callers that parallelize
// compute chunk totals concurrently and add them in chunk order).
inline double total(const float* x, int64_t b, int64_t e) {
  double t = 0;
  for (int64_t c = b; c < e; c += kChunk) t += chunk_total(x, c, std::min(e, c + kChunk));
  return t;
}

}  // namespace gcu::compress::sumsq
