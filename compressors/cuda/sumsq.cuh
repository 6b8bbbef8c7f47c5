// Device twin of compressors/sumsq.h: sums of squares in exactly the CPU's order, so that
// qsgd's norms and thc's RMS are bit-identical on the GPU (docs/compressors_cuda.md,
// "Sum of squares"). C++17; .cu files only.
#pragma once

#include "compressors/sumsq.h"

#include <cstdint>

namespace gcu::cuda {

// One full warp (all 32 lanes call it together): the float partial of the run x[b, e),
// e - b <= sumsq::kRun, returned in lane 0. The window of 32 elements at s has element
// s + t in lane t; lane j < 16 adds element s + j then s + j + 16 (both CPU lane j, in
// index order); padding past e adds +0.0f, which leaves a lane (>= +0) unchanged. Then
// the lanes fold as on the CPU (8, 4, 2, 1). Squares and adds are explicitly rounded.
__device__ __forceinline__ float warp_run_sumsq(const float* x, int64_t b, int64_t e) {
  static_assert(compress::sumsq::kLanes == 16, "one warp holds two windows of 16 lanes");
  const int lane = threadIdx.x & 31;
  float acc = 0.0f;
  for (int64_t s = b; s < e; s += 32) {
    const int64_t i = s + lane;
    const float v = i < e ? x[i] : 0.0f;
    const float sq = __fmul_rn(v, v);
    const float upper = __shfl_down_sync(0xffffffffu, sq, 16);  // element s + lane + 16
    if (lane < 16) acc = __fadd_rn(__fadd_rn(acc, sq), upper);
  }
  for (int w = compress::sumsq::kLanes / 2; w > 0; w >>= 1) {
    const float o = __shfl_down_sync(0xffffffffu, acc, w);
    if (lane < w) acc = __fadd_rn(acc, o);
  }
  return acc;
}

}  // namespace gcu::cuda
