// Device twins of compressors/sparse.h, shared by the CUDA sparsifiers (topk, topkc,
// randomk, mstopk, dgc): exact top-k by magnitude with the CPU's tie rule and output order,
// and the all-gather + rank-ordered scatter-add decode. C++17; .cu files only.
#pragma once

#include "compressors/compressor.h"
#include "device_array.h"

#include <cstdint>

namespace gcu::cuda::sparse {

// Device state of one selection. The radix passes fix prefix/mask/k_rem; the compaction
// then takes every element with key >= hi, plus the first `ties` elements (by index) with
// lo <= key < hi, in ascending index order. Exact top-k: hi = T + 1, lo = T, ties = k_rem.
struct SelectState {
  uint32_t prefix;     // key bits fixed so far (then: the threshold key T)
  uint32_t mask;       // which bits of prefix are fixed
  long long k_rem;     // elements still to take among those matching prefix
  uint32_t hi, lo;     // compaction bounds (see above)
  long long ties;
  long long selected;  // set by count_selection()
};

// Scratch kept by a compressor between calls (grow-only).
struct SelectScratch {
  DeviceArray<unsigned> hist;
  DeviceArray<SelectState> state;
  DeviceArray<unsigned long long> tile_counts, tile_offsets;
  DeviceArray<unsigned char> scan_temp;
};

// sparse::mag_key on the device: the float's bits with the sign cleared.
__device__ __forceinline__ uint32_t mag_key(float x) { return __float_as_uint(x) & 0x7fffffffu; }

// The k elements of x[0, n) with the largest mag_key, ties at the threshold going to the
// lowest indices, written in ascending index order: values[j] = x[indices[j]].
// 0 <= k <= n < 2^31. Device pointers; enqueued on the current stream, no host
// synchronization. Three histogram passes (11 + 10 + 10 bits of the 31-bit key, warp-
// aggregated shared atomics) then one compaction.
void select_topk(const float* x, int64_t n, int64_t k, float* values, int32_t* indices,
                 SelectScratch& s);
// The radix passes of select_topk() alone: s.state gets the exact top-k bounds. With a
// non-null `gate` (device int) every kernel does nothing unless *gate != 0 when it runs,
// so a scheme can choose this path on the device without a host round trip (mstopk on
// NaN/Inf input).
void radix_threshold(const float* x, int64_t n, int64_t k, SelectScratch& s, const int* gate);

// Compaction by the bounds already in s.state (set by a scheme's own kernel): writes the
// selected elements in ascending index order; returns nothing (count unknown on the host).
void select_by_state(const float* x, int64_t n, float* values, int32_t* indices, SelectScratch& s);
// Number of elements select_by_state() would write (synchronizes: one 8-byte copy).
int64_t count_selection(const float* x, int64_t n, SelectScratch& s);
// Device pointer to the state (for schemes' kernels that set hi/lo/ties); allocates it.
SelectState* state_of(SelectScratch& s);

// out[0, n) = 0, then for r = 0..p-1 in order, j < count: out[idx[r*count+j]] += val[r*count+j]
// * scale (one launch per rank; indices distinct within a rank, except value-0 padding
// pairs, which are skipped: adding 0 changes nothing), as sparse::scatter_add.
void scatter_add(const float* values, const int32_t* indices, int64_t count, int p, float* out,
                 int64_t n, float scale);

// Two all-gathers (F32 "values", I32 "indices") of count pairs per rank, then the
// average decode into out[0, n). gathered_* grow to p * count.
void allgather_decode(compress::Communicator& comm, const float* values, const int32_t* indices,
                      int64_t count, float* out, int64_t n, DeviceArray<float>& gathered_values,
                      DeviceArray<int32_t>& gathered_indices);

}  // namespace gcu::cuda::sparse
