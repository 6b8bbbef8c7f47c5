// Shared pieces of the sparsifying schemes (topk, topkc, randomk, mstopk, dgc): the kept
// count, the magnitude order, exact top-k selection and the all-gather + scatter-add
// decode. Definitions here are part of the wire formats: the CUDA versions must follow
// them (see docs/compressors.md).
#pragma once

#include "compressor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gcu::compress::sparse {

// Number of elements (or chunks) kept out of n for a fraction k in (0, 1]:
//   kept_count(0, k) = 0;  kept_count(n, k) = min(n, max(1, ceil(k * n)))  for n > 0,
// computed in double as ceil(k * n * (1 - 1e-12)) so that products such as
// 0.01 * 100 = 1.0000000000000002 are not rounded up to 2.
inline int64_t kept_count(int64_t n, double k) {
  if (n <= 0) return 0;
  const double c = std::ceil(k * static_cast<double>(n) * (1.0 - 1e-12));
  int64_t kc = static_cast<int64_t>(c);
  if (kc < 1) kc = 1;
  return kc > n ? n : kc;
}

// The magnitude order used by every selection: the float's bits with the sign cleared,
// compared as unsigned integers. For finite values and Inf this is the order of |x|;
// NaN (any payload) sorts above +Inf, so NaNs are selected first and propagate to the
// result instead of being silently dropped. -0 and +0 are equal (key 0).
inline uint32_t mag_key(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u & 0x7fffffffu;
}

// Index-based schemes send int32 indices: a bucket must have fewer than 2^31 elements.
// The check depends only on the layout, so all ranks throw together (no hang).
void check_int32_range(const std::string& scheme, int64_t bucket_index, int64_t n);

// Exact top-k by magnitude: the k elements with the largest mag_key(); ties at the
// threshold go to the lowest indices. Output in ascending index order:
// values[j] = x[indices[j]], j < k. 0 <= k <= n < 2^31. Radix select on the keys (two
// 16-bit histogram passes and one output pass, OpenMP-parallel for large n).
void select_topk(const float* x, int64_t n, int64_t k, float* values, int32_t* indices);

// The same selection by std::nth_element on (key desc, index asc): reference for tests
// and the path taken for small n.
void select_topk_reference(const float* x, int64_t n, int64_t k, float* values,
                           int32_t* indices);

// out[0..n) = 0, then for r = 0..p-1, j = 0..count-1 (rank-major, the all-gather order):
// out[idx[r*count+j]] += val[r*count+j] * scale. scale = 1/p for the average.
void scatter_add(const float* values, const int32_t* indices, int64_t total, float* out,
                 int64_t n, float scale);

// All-gathers `count` (value, index) pairs per rank (two all-gathers: F32 "values", then
// I32 "indices") and decodes the average over ranks into out[0..n).
void allgather_decode(Communicator& comm, const float* values, const int32_t* indices,
                      int64_t count, float* out, int64_t n);

// The plan of allgather_decode().
std::vector<CollectiveCall> allgather_plan(int64_t count);

}  // namespace gcu::compress::sparse
