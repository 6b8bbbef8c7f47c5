// "mstopk" on the GPU (compressors/mstopk.h: the selection and wire format there): mean
// and max of |x|, then the MSTopK binary search on the device, then Set1 plus the first
// K - k1 of the band in ascending index order (the shared compaction of sparse.cuh);
// exact top-K when x holds NaN/Inf. No host round trip: every decision (NaN/Inf path,
// when to compact) is a device flag that the kernels read. Like the CPU, the search
// counts on the whole buffer while the interval [lo_thr, hi_thr) may hold more than n/16
// elements, then compacts the candidates once (|x| in the interval, warp-aggregated
// appends) and counts / re-compacts only those: the counts, and so the selection, are
// those of full passes. Same selection as the CPU up to the float rounding of the mean
// (a double sum in another order); the thresholds use explicitly rounded float
// operations like the CPU's.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"
#include "sparse.cuh"

#include "compressors/sparse.h"

namespace gcu::cuda {
namespace {

struct Search {
  double sum;
  float u;
  int bad;  // NaN/Inf in x: exact top-K (the search kernels do nothing)
  float mean, l, r, thr, thr1, thr2;
  long long k1, k2;
  unsigned long long nnz;
  // Candidate compaction (as the CPU's): above = #{a >= hi_thr}; inside >= #{lo_thr <= a < hi_thr}.
  float lo_thr, hi_thr;
  long long above, inside;
  int compacted, cur, do_compact;   // cur: which candidate buffer is live
  unsigned long long ncand, ncand_new;
  unsigned blocks_done;
};

constexpr int kStatBlocks = 1024;

__global__ void stats_kernel(const float* x, int64_t n, double* psum, float* pmax, int* pbad) {
  __shared__ double ss[kBlock];
  __shared__ float sm[kBlock];
  __shared__ int sb[kBlock];
  double s = 0;
  float m = 0;
  int b = 0;
  GCU_GRID_STRIDE(i, n) {
    const float a = fabsf(x[i]);
    s += a;
    m = a > m ? a : m;
    b |= sparse::mag_key(x[i]) >= 0x7f800000u;
  }
  ss[threadIdx.x] = s;
  sm[threadIdx.x] = m;
  sb[threadIdx.x] = b;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) {
      ss[threadIdx.x] += ss[threadIdx.x + off];
      sm[threadIdx.x] = sm[threadIdx.x + off] > sm[threadIdx.x] ? sm[threadIdx.x + off] : sm[threadIdx.x];
      sb[threadIdx.x] |= sb[threadIdx.x + off];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    psum[blockIdx.x] = ss[0];
    pmax[blockIdx.x] = sm[0];
    pbad[blockIdx.x] = sb[0];
  }
}

__device__ __forceinline__ float next_thr(Search* s) {
  const float ratio = __fadd_rn(s->l, __fdiv_rn(__fsub_rn(s->r, s->l), 2.0f));
  return __fadd_rn(s->mean, __fmul_rn(ratio, __fsub_rn(s->u, s->mean)));
}

__global__ void search_init(const double* psum, const float* pmax, const int* pbad, int blocks,
                            int64_t n, Search* s) {
  double sum = 0;
  float u = 0;
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    sum += psum[b];
    u = pmax[b] > u ? pmax[b] : u;
    bad |= pbad[b];
  }
  s->sum = sum;
  s->u = u;
  s->bad = bad;
  const float m = static_cast<float>(sum / static_cast<double>(n));
  s->mean = u < m ? u : m;
  s->l = 0.0f;
  s->r = 1.0f;
  s->thr1 = __int_as_float(0x7f800000);
  s->thr2 = 0.0f;
  s->k1 = 0;
  s->k2 = n;
  s->nnz = 0;
  s->lo_thr = s->mean;
  s->hi_thr = __int_as_float(0x7f800000);
  s->above = 0;
  s->inside = n;
  s->compacted = 0;
  s->cur = 0;
  s->do_compact = 0;
  s->ncand = 0;
  s->thr = next_thr(s);
}

// nnz (+)= #{a >= thr} over x, or over the live candidates once compacted.
__global__ void count_ge(const float* x, int64_t n, const float* cand0, const float* cand1, Search* s) {
  if (s->bad) return;
  unsigned long long c = 0;
  if (s->compacted) {
    const float* cand = s->cur ? cand1 : cand0;
    const float thr = s->thr;
    const int64_t len = static_cast<int64_t>(s->ncand);
    GCU_GRID_STRIDE(i, len) c += cand[i] >= thr;
  } else {
    const uint32_t t = __float_as_uint(s->thr);  // thr >= 0: a >= thr <=> key >= bits(thr)
    GCU_GRID_STRIDE(i, n) c += sparse::mag_key(x[i]) >= t;
  }
  for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(&s->nnz, c);
}

// One iteration's bookkeeping, as the CPU's loop body (mstopk.cpp).
__global__ void search_update(Search* s, long long K, int64_t n, bool last) {
  if (s->bad) return;
  const long long nnz = static_cast<long long>(s->nnz) + (s->compacted ? s->above : 0);
  const float ratio = __fadd_rn(s->l, __fdiv_rn(__fsub_rn(s->r, s->l), 2.0f));
  if (nnz <= K) {
    s->r = ratio;
    s->inside -= nnz - s->above;
    s->above = nnz;
    s->hi_thr = s->thr;
    if (nnz > s->k1) { s->k1 = nnz; s->thr1 = s->thr; }
  } else {
    s->l = ratio;
    s->inside = nnz - s->above;
    s->lo_thr = s->thr;
    if (nnz < s->k2) { s->k2 = nnz; s->thr2 = s->thr; }
  }
  s->nnz = 0;
  s->do_compact = !last && (s->compacted || s->inside <= n / 16);
  s->ncand_new = 0;
  s->blocks_done = 0;
  s->thr = next_thr(s);
}

// Candidates |a| in [lo_thr, hi_thr) from x (first time) or from the live buffer into the
// other one (order irrelevant: they are only counted); the last block to finish swaps.
__global__ void compact_candidates(const float* x, int64_t n, float* cand0, float* cand1, uint64_t cap, Search* s) {
  if (s->bad || !s->do_compact) return;
  const bool from_x = !s->compacted;
  const float* src = from_x ? x : (s->cur ? cand1 : cand0);
  float* dst = s->cur ? cand0 : cand1;  // cur == 0 before the first compaction
  const int64_t len = from_x ? n : static_cast<int64_t>(s->ncand);
  const float lo = s->lo_thr, hi = s->hi_thr;
  const int lane = threadIdx.x & 31;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + (threadIdx.x & ~31); base < len;
       base += stride) {
    const int64_t i = base + lane;
    const float a = i < len ? fabsf(src[i]) : 0.0f;
    const bool keep = i < len && a >= lo && a < hi;
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    unsigned long long at = 0;
    if (lane == 0 && mask) at = atomicAdd(&s->ncand_new, static_cast<unsigned long long>(__popc(mask)));
    at = __shfl_sync(0xffffffffu, at, 0);
    const uint64_t pos = at + __popc(mask & ((1u << lane) - 1u));
    if (keep && pos < cap) dst[pos] = a;  // pos < cap always (inside bounds it, as on the CPU)
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&s->blocks_done, 1u) == gridDim.x - 1) {
      __threadfence();
      const unsigned long long c = atomicAdd(&s->ncand_new, 0ull);
      s->ncand = c < cap ? c : cap;
      s->cur ^= 1;
      s->compacted = 1;
    }
  }
}

__global__ void search_finish(const Search* s, long long K, sparse::SelectState* st) {
  if (s->bad) return;  // exact top-K bounds come from sparse::radix_threshold
  st->hi = __float_as_uint(s->thr1);
  st->lo = __float_as_uint(s->thr2);
  st->ties = K - s->k1;
}

class MstopkCuda final : public CudaScheme {
 public:
  explicit MstopkCuda(std::unique_ptr<Compressor> cpu) : CudaScheme(std::move(cpu)) {
    const SchemeArgs a = params();
    k_ = a.get_double("k", 0.01);
    iters_ = a.get_int("iters", 20);
  }
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("mstopk", b.index, n);
    const int64_t K = select(b.data, n);
    if (local) sparse::scatter_add(values_.get(), indices_.get(), K, 1, local, n, 1.0f);
    sparse::allgather_decode(comm, values_.get(), indices_.get(), K, b.data, n, all_v_, all_i_);
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("mstopk", bucket_index, n);
    const int64_t K = select(in, n);
    sparse::scatter_add(values_.get(), indices_.get(), K, 1, out, n, 1.0f);
  }

 private:
  int64_t select(const float* x, int64_t n) {
    const int64_t K = compress::sparse::kept_count(n, k_);
    if (K == 0) return 0;
    float* values = values_.reserve(static_cast<size_t>(K));
    int32_t* indices = indices_.reserve(static_cast<size_t>(K));
    const int blocks = static_cast<int>(grid_for(n) < kStatBlocks ? grid_for(n) : kStatBlocks);
    Search* s = search_.reserve(1);
    stats_kernel<<<blocks, kBlock, 0, stream()>>>(x, n, psum_.reserve(kStatBlocks), pmax_.reserve(kStatBlocks),
                                     pbad_.reserve(kStatBlocks));
    CUDA_CHECK_LAUNCH();
    search_init<<<1, 1, 0, stream()>>>(psum_.get(), pmax_.get(), pbad_.get(), blocks, n, s);
    CUDA_CHECK_LAUNCH();
    // NaN/Inf: exact top-K bounds (gated on s->bad: no-ops otherwise).
    sparse::radix_threshold(x, n, K, sel_, &s->bad);
    const unsigned grid = grid_for(n) < 2048 ? grid_for(n) : 2048;
    const size_t cap = static_cast<size_t>(n / 16 + 1);  // >= inside when compacting (mstopk.cpp)
    float* cand0 = cand_[0].reserve(cap);
    float* cand1 = cand_[1].reserve(cap);
    for (int64_t it = 0; it < iters_; ++it) {
      count_ge<<<grid, kBlock, 0, stream()>>>(x, n, cand0, cand1, s);
      CUDA_CHECK_LAUNCH();
      search_update<<<1, 1, 0, stream()>>>(s, K, n, it + 1 == iters_);
      CUDA_CHECK_LAUNCH();
      if (it + 1 < iters_) {
        compact_candidates<<<grid, kBlock, 0, stream()>>>(x, n, cand0, cand1, cap, s);
        CUDA_CHECK_LAUNCH();
      }
    }
    CUDA_CHECK(cudaMemsetAsync(values, 0, static_cast<size_t>(K) * sizeof(float), stream()));
    CUDA_CHECK(cudaMemsetAsync(indices, 0, static_cast<size_t>(K) * sizeof(int32_t), stream()));
    search_finish<<<1, 1, 0, stream()>>>(s, K, sparse::state_of(sel_));
    CUDA_CHECK_LAUNCH();
    sparse::select_by_state(x, n, values, indices, sel_);
    return K;
  }
  double k_ = 0.01;
  int64_t iters_ = 20;
  DeviceArray<Search> search_;
  DeviceArray<double> psum_;
  DeviceArray<float> pmax_, values_, all_v_;
  DeviceArray<int> pbad_;
  DeviceArray<int32_t> indices_, all_i_;
  DeviceArray<float> cand_[2];
  sparse::SelectScratch sel_;
};

}  // namespace

std::unique_ptr<Compressor> make_mstopk_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<MstopkCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
