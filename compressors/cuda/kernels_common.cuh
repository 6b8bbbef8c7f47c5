// Small device helpers shared by the .cu files of compressors/cuda: launch geometry,
// grid-stride loops and elementwise kernels every scheme needs (scale, copy, scatter-add).
// C++17; included by .cu files only.
#pragma once

#include "cuda_check.h"

#include <cstdint>

namespace gcu::cuda {

constexpr int kBlock = 256;

// Blocks for a grid-stride loop over n elements (>= 1; callers skip n == 0).
inline unsigned grid_for(int64_t n, int block = kBlock) {
  int64_t g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > (int64_t{1} << 20)) g = int64_t{1} << 20;
  return static_cast<unsigned>(g);
}

#define GCU_GRID_STRIDE(i, n)                                                  \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// x[i] *= s
void scale_inplace(float* x, int64_t n, float s);
// x[idx[j]] += v[j] for j < m; indices must be distinct within one call (no atomics), so
// calling it once per rank, in rank order, adds in the same order as the CPU decoders.
void scatter_add_unique(float* x, const float* v, const int32_t* idx, int64_t m);
// x[:] = 0
void zero(float* x, int64_t n);

}  // namespace gcu::cuda
