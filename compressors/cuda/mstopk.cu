// "mstopk" on the GPU (compressors/mstopk.h: the selection and wire format there): mean
// and max of |x|, then the MSTopK binary search on the device (one counting pass per
// iteration and a one-thread update, no host round trips), then Set1 plus the first
// K - k1 of the band in ascending index order (the shared compaction of sparse.cuh);
// exact top-K when x holds NaN/Inf. Same selection as the CPU up to the float rounding of
// the mean (a double sum in another order); the thresholds use explicitly rounded float
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
  int bad;
  float mean, l, r, thr, thr1, thr2;
  long long k1, k2;
  unsigned long long nnz;
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
  s->thr = next_thr(s);
}

__global__ void count_ge(const float* x, int64_t n, Search* s) {
  const uint32_t t = __float_as_uint(s->thr);  // thr >= 0: a >= thr <=> key >= bits(thr)
  unsigned long long c = 0;
  GCU_GRID_STRIDE(i, n) c += sparse::mag_key(x[i]) >= t;
  for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(&s->nnz, c);
}

__global__ void search_update(Search* s, long long K) {
  const long long nnz = static_cast<long long>(s->nnz);
  const float ratio = __fadd_rn(s->l, __fdiv_rn(__fsub_rn(s->r, s->l), 2.0f));
  if (nnz <= K) {
    s->r = ratio;
    if (nnz > s->k1) { s->k1 = nnz; s->thr1 = s->thr; }
  } else {
    s->l = ratio;
    if (nnz < s->k2) { s->k2 = nnz; s->thr2 = s->thr; }
  }
  s->nnz = 0;
  s->thr = next_thr(s);
}

__global__ void search_finish(const Search* s, long long K, sparse::SelectState* st) {
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
  void step(GradBucket b, Communicator& comm) override { step_with_local(b, comm, nullptr); }
  void step_with_local(GradBucket b, Communicator& comm, float* local) override {
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
    float* values = values_.reserve(static_cast<size_t>(K));
    int32_t* indices = indices_.reserve(static_cast<size_t>(K));
    const int blocks = static_cast<int>(grid_for(n) < kStatBlocks ? grid_for(n) : kStatBlocks);
    Search* s = search_.reserve(1);
    stats_kernel<<<blocks, kBlock>>>(x, n, psum_.reserve(kStatBlocks), pmax_.reserve(kStatBlocks),
                                     pbad_.reserve(kStatBlocks));
    CUDA_CHECK_LAUNCH();
    search_init<<<1, 1>>>(psum_.get(), pmax_.get(), pbad_.get(), blocks, n, s);
    CUDA_CHECK_LAUNCH();
    int bad = 0;
    CUDA_CHECK(cudaMemcpy(&bad, &s->bad, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) {
      sparse::select_topk(x, n, K, values, indices, sel_);
      return K;
    }
    const unsigned grid = grid_for(n) < 2048 ? grid_for(n) : 2048;
    for (int64_t it = 0; it < iters_; ++it) {
      count_ge<<<grid, kBlock>>>(x, n, s);
      CUDA_CHECK_LAUNCH();
      search_update<<<1, 1>>>(s, K);
      CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaMemsetAsync(values, 0, static_cast<size_t>(K) * sizeof(float), 0));
    CUDA_CHECK(cudaMemsetAsync(indices, 0, static_cast<size_t>(K) * sizeof(int32_t), 0));
    search_finish<<<1, 1>>>(s, K, sparse::state_of(sel_));
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
  sparse::SelectScratch sel_;
};

}  // namespace

std::unique_ptr<Compressor> make_mstopk_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<MstopkCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
