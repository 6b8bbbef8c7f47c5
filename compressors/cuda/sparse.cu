// Exact top-k by radix select and the sparse decode on the GPU (sparse.cuh).
#include "sparse.cuh"

#include "kernels_common.cuh"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

namespace gcu::cuda::sparse {
namespace {

constexpr int kPasses = 3;
constexpr int kShift[kPasses] = {20, 10, 0};
constexpr int kBits[kPasses] = {11, 10, 10};
constexpr int kMaxBins = 2048;
constexpr int kScanThreads = 1024;       // digit selection: 2 bins per thread
constexpr int kTileThreads = 256;
constexpr int kItems = 8;                // per thread in the compaction
constexpr int kTile = kTileThreads * kItems;

// gate: nullptr, or a device flag; the radix kernels do nothing while *gate == 0.
__device__ __forceinline__ bool gated_off(const int* gate) { return gate && *gate == 0; }

__global__ void init_state(SelectState* st, long long k, const int* gate) {
  if (gated_off(gate)) return;
  st->prefix = 0;
  st->mask = 0;
  st->k_rem = k;
}

// After the radix passes: T = prefix; take keys > T and the first k_rem keys == T.
__global__ void finalize_topk(SelectState* st, const int* gate) {
  if (gated_off(gate)) return;
  st->hi = st->prefix + 1u;
  st->lo = st->prefix;
  st->ties = st->k_rem;
}

// Category of a key: 1 << 32 (all taken), 1 (tie band), 0 (not selected).
__device__ __forceinline__ unsigned long long category(uint32_t key, uint32_t hi, uint32_t lo) {
  return key >= hi ? (1ull << 32) : (key >= lo ? 1ull : 0ull);
}

// Histogram of the digit (key >> shift) & (bins-1) over keys matching the prefix.
// Same-address shared atomics serialise (a gradient with many zeros or equal values puts
// most keys in one bin): the lanes of a warp with the same bin are grouped with
// __match_any_sync and their leader adds the group's size once.
__global__ void histogram(const float* x, int64_t n, const SelectState* st, int shift, int bins,
                          unsigned* hist, const int* gate) {
  if (gated_off(gate)) return;
  __shared__ unsigned h[kMaxBins];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) h[b] = 0;
  __syncthreads();
  const uint32_t prefix = st->prefix, mask = st->mask;
  const int lane = threadIdx.x & 31;
  // Warp-uniform trip count (every lane runs every iteration): full-mask warp intrinsics.
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + (threadIdx.x & ~31); base < n;
       base += stride) {
    const int64_t i = base + lane;
    int bin = -1;
    if (i < n) {
      const uint32_t key = mag_key(x[i]);
      if ((key & mask) == prefix) bin = static_cast<int>((key >> shift) & (bins - 1));
    }
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    if (bin >= 0 && lane == __ffs(peers) - 1) atomicAdd(&h[bin], static_cast<unsigned>(__popc(peers)));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (h[b]) atomicAdd(&hist[b], h[b]);
}

// Finds the digit d where the count of matching keys with digit >= d first reaches
// k_rem (scanning from the top), fixes it in the prefix and keeps k_rem for the ties.
// __launch_bounds__: without it nvcc gave this kernel 87 registers, and 87 x 1024 threads
// exceeds an SM's 64 K registers: every launch failed with cudaErrorLaunchOutOfResources
// (first GPU run, H100).
__global__ void __launch_bounds__(kScanThreads)
    choose_digit(const unsigned* hist, SelectState* st, int shift, int bins, const int* gate) {
  if (gated_off(gate)) return;  // uniform over the block: before any barrier
  using Scan = cub::BlockScan<unsigned long long, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  // Thread t owns bins (bins-1-2t) and (bins-2-2t): descending digits in thread order.
  const int d0 = bins - 1 - 2 * static_cast<int>(threadIdx.x), d1 = d0 - 1;
  unsigned long long c[2] = {d0 >= 0 ? hist[d0] : 0ull, d1 >= 0 ? hist[d1] : 0ull};
  unsigned long long inc[2];
  Scan(temp).InclusiveSum(c, inc);
  const long long k_rem = st->k_rem;
  __syncthreads();  // everyone has read k_rem before it changes
  for (int j = 0; j < 2; ++j) {
    const int d = j == 0 ? d0 : d1;
    if (d < 0) continue;
    const long long ge = static_cast<long long>(inc[j]);
    const long long gt = ge - static_cast<long long>(c[j]);
    if (ge >= k_rem && gt < k_rem) {
      st->prefix |= static_cast<uint32_t>(d) << shift;
      st->mask |= static_cast<uint32_t>(bins - 1) << shift;
      st->k_rem = k_rem - gt;
    }
  }
}

// Per tile: (number of keys >= hi) << 32 | (number in [lo, hi)).
__global__ void count_tiles(const float* x, int64_t n, const SelectState* st,
                            unsigned long long* counts) {
  using Reduce = cub::BlockScan<unsigned long long, kTileThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const uint32_t hi = st->hi, lo = st->lo;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x * kItems;
  unsigned long long c = 0;
  for (int j = 0; j < kItems; ++j) {
    const int64_t i = base + j;
    if (i < n) c += category(mag_key(x[i]), hi, lo);
  }
  unsigned long long total;
  unsigned long long ignored;
  Reduce(temp).ExclusiveSum(c, ignored, total);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

__global__ void write_selection(const float* x, int64_t n, const SelectState* st,
                                const unsigned long long* offsets, float* values,
                                int32_t* indices) {
  using Scan = cub::BlockScan<unsigned long long, kTileThreads>;
  __shared__ typename Scan::TempStorage temp;
  const uint32_t hi = st->hi, lo = st->lo;
  const long long ties = st->ties;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x * kItems;
  unsigned long long cat[kItems];
  unsigned long long c = 0;
  for (int j = 0; j < kItems; ++j) {
    const int64_t i = base + j;
    cat[j] = i < n ? category(mag_key(x[i]), hi, lo) : 0ull;
    c += cat[j];
  }
  unsigned long long before;
  Scan(temp).ExclusiveSum(c, before);
  before += offsets[blockIdx.x];
  long long gt = static_cast<long long>(before >> 32);
  long long eq = static_cast<long long>(before & 0xffffffffull);
  for (int j = 0; j < kItems; ++j) {
    const int64_t i = base + j;
    if (i >= n) break;
    const bool is_gt = cat[j] == (1ull << 32), is_eq = cat[j] == 1ull;
    if (is_gt || (is_eq && eq < ties)) {
      const long long pos = gt + (eq < ties ? eq : ties);
      values[pos] = x[i];
      indices[pos] = static_cast<int32_t>(i);
    }
    gt += is_gt;
    eq += is_eq;
  }
}

// Total selected: gt + min(eq, ties) from the last tile's offset and count.
__global__ void total_kernel(const unsigned long long* counts, const unsigned long long* offsets,
                             int64_t tiles, SelectState* st) {
  const unsigned long long t = offsets[tiles - 1] + counts[tiles - 1];
  const long long gt = static_cast<long long>(t >> 32), eq = static_cast<long long>(t & 0xffffffffull);
  st->selected = gt + (eq < st->ties ? eq : st->ties);
}

__global__ void scatter_rank(const float* v, const int32_t* idx, int64_t m, float* out, float scale) {
  // Explicit rounding: no fused multiply-add, as on the CPU (which is built without FMA);
  // NaN payloads propagate as on the CPU (x86_mul/x86_add).
  // Zero values are skipped: they change nothing and may be padding pairs sharing index 0.
  GCU_GRID_STRIDE(j, m) {
    const float val = v[j];
    if (val != 0.0f) out[idx[j]] = x86_add(out[idx[j]], x86_mul(val, scale));
  }
}

// count_tiles + exclusive scan of the tile counts into s.tile_offsets; returns #tiles.
int64_t count_and_scan(const float* x, int64_t n, SelectScratch& s) {
  SelectState* st = s.state.get();
  const int64_t tiles = (n + kTile - 1) / kTile;
  unsigned long long* counts = s.tile_counts.reserve(static_cast<size_t>(tiles));
  unsigned long long* offsets = s.tile_offsets.reserve(static_cast<size_t>(tiles));
  count_tiles<<<static_cast<unsigned>(tiles), kTileThreads, 0, stream()>>>(x, n, st, counts);
  CUDA_CHECK_LAUNCH();
  size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, static_cast<int>(tiles), stream()));
  void* temp = s.scan_temp.reserve(temp_bytes);
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, static_cast<int>(tiles), stream()));
  return tiles;
}

}  // namespace

void radix_threshold(const float* x, int64_t n, int64_t k, SelectScratch& s, const int* gate) {
  if (k <= 0 || n <= 0) return;
  unsigned* hist = s.hist.reserve(kPasses * kMaxBins);
  SelectState* st = s.state.reserve(1);
  CUDA_CHECK(cudaMemsetAsync(hist, 0, kPasses * kMaxBins * sizeof(unsigned), stream()));
  init_state<<<1, 1, 0, stream()>>>(st, static_cast<long long>(k), gate);
  CUDA_CHECK_LAUNCH();
  const unsigned grid = grid_for(n) < 4096 ? grid_for(n) : 4096;
  for (int p = 0; p < kPasses; ++p) {
    const int bins = 1 << kBits[p];
    histogram<<<grid, kBlock, 0, stream()>>>(x, n, st, kShift[p], bins, hist + p * kMaxBins, gate);
    CUDA_CHECK_LAUNCH();
    choose_digit<<<1, kScanThreads, 0, stream()>>>(hist + p * kMaxBins, st, kShift[p], bins, gate);
    CUDA_CHECK_LAUNCH();
  }
  finalize_topk<<<1, 1, 0, stream()>>>(st, gate);
  CUDA_CHECK_LAUNCH();
}

void select_topk(const float* x, int64_t n, int64_t k, float* values, int32_t* indices,
                 SelectScratch& s) {
  if (k <= 0 || n <= 0) return;
  radix_threshold(x, n, k, s, nullptr);
  select_by_state(x, n, values, indices, s);
}

SelectState* state_of(SelectScratch& s) { return s.state.reserve(1); }

void select_by_state(const float* x, int64_t n, float* values, int32_t* indices, SelectScratch& s) {
  if (n <= 0) return;
  const int64_t tiles = count_and_scan(x, n, s);
  write_selection<<<static_cast<unsigned>(tiles), kTileThreads, 0, stream()>>>(x, n, s.state.get(), s.tile_offsets.get(),
                                                                   values, indices);
  CUDA_CHECK_LAUNCH();
}

int64_t count_selection(const float* x, int64_t n, SelectScratch& s) {
  if (n <= 0) return 0;
  const int64_t tiles = count_and_scan(x, n, s);
  total_kernel<<<1, 1, 0, stream()>>>(s.tile_counts.get(), s.tile_offsets.get(), tiles, s.state.get());
  CUDA_CHECK_LAUNCH();
  long long selected = 0;
  CUDA_CHECK(cudaMemcpy(&selected, &s.state.get()->selected, sizeof selected, cudaMemcpyDeviceToHost));
  return selected;
}

void scatter_add(const float* values, const int32_t* indices, int64_t count, int p, float* out,
                 int64_t n, float scale) {
  zero(out, n);
  if (count <= 0) return;
  for (int r = 0; r < p; ++r) {
    scatter_rank<<<grid_for(count), kBlock, 0, stream()>>>(values + r * count, indices + r * count, count, out, scale);
    CUDA_CHECK_LAUNCH();
  }
}

void allgather_decode(compress::Communicator& comm, const float* values, const int32_t* indices,
                      int64_t count, float* out, int64_t n, DeviceArray<float>& gathered_values,
                      DeviceArray<int32_t>& gathered_indices) {
  const int p = comm.world_size();
  float* all_v = gathered_values.reserve(static_cast<size_t>(p) * count);
  int32_t* all_i = gathered_indices.reserve(static_cast<size_t>(p) * count);
  comm.all_gather(values, all_v, count, compress::WireType::F32);
  comm.all_gather(indices, all_i, count, compress::WireType::I32);
  scatter_add(all_v, all_i, count, p, out, n, 1.0f / static_cast<float>(p));
}

}  // namespace gcu::cuda::sparse
