// Small device helpers shared by the .cu files of compressors/cuda: launch geometry,
// grid-stride loops and elementwise kernels every scheme needs (scale, copy, scatter-add).
// C++17; included by .cu files only.
#pragma once

#include "cuda_check.h"
#include "cuda_scheme.h"

#include <cstdint>

namespace gcu::cuda {

constexpr int kBlock = 256;

// The stream to enqueue on: the calling thread's current stream (cuda_scheme.h).
inline cudaStream_t stream() { return static_cast<cudaStream_t>(current_stream()); }

// Blocks for a grid-stride loop over n elements (>= 1; callers skip n == 0).
inline unsigned grid_for(int64_t n, int block = kBlock) {
  int64_t g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > (int64_t{1} << 20)) g = int64_t{1} << 20;
  return static_cast<unsigned>(g);
}

// NaN propagation of the CPU versions (x86 SSE/AVX arithmetic): a NaN operand comes out
// quieted with its sign and payload, where CUDA arithmetic returns the canonical NaN
// 0x7fffffff. Kernels whose float results must equal the CPU's bytes use these for
// every multiply/add that can meet a NaN payload (docs/compressors_cuda.md, "NaN").
// When both operands are NaN the first one wins; the CPU's choice there depends on the
// operand order its compiler picked (the one case where NaN payloads may differ).
__device__ __forceinline__ float quiet_nan(float a) { return __uint_as_float(__float_as_uint(a) | 0x00400000u); }
__device__ __forceinline__ float x86_mul(float a, float b) {
  return isnan(a) ? quiet_nan(a) : (isnan(b) ? quiet_nan(b) : __fmul_rn(a, b));
}
__device__ __forceinline__ float x86_add(float a, float b) {
  return isnan(a) ? quiet_nan(a) : (isnan(b) ? quiet_nan(b) : __fadd_rn(a, b));
}

#define GCU_GRID_STRIDE(i, n)                                                  \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// x[i] *= s (NaN payloads kept, as on the CPU)
void scale_inplace(float* x, int64_t n, float s);
// x[idx[j]] += v[j] for j < m; indices must be distinct within one call (no atomics), so
// calling it once per rank, in rank order, adds in the same order as the CPU decoders.
void scatter_add_unique(float* x, const float* v, const int32_t* idx, int64_t m);
// x[:] = 0
void zero(float* x, int64_t n);

}  // namespace gcu::cuda
