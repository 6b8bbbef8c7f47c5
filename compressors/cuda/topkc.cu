// "topkc" on the GPU (compressors/topkc.h: wire format there): chunk norms summed in
// double in index order (one thread per chunk: bit-identical to the CPU), all-reduce of
// the norms, top-C chunks by the shared radix select (sparse.cuh), all-reduce of the
// chosen chunks' values packed in ascending chunk order, unpack * 1/p.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"
#include "sparse.cuh"

#include "compressors/sparse.h"

namespace gcu::cuda {
namespace {

__global__ void norms_kernel(const float* x, int64_t n, int64_t chunk, int64_t m, float* norms) {
  GCU_GRID_STRIDE(c, m) {
    const int64_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) s += static_cast<double>(x[i]) * x[i];
    norms[c] = static_cast<float>(s);
  }
}

__global__ void iota_kernel(int32_t* v, int64_t m) {
  GCU_GRID_STRIDE(c, m) v[c] = static_cast<int32_t>(c);
}

// payload[j*chunk + t] = x[chosen[j]*chunk + t] (0 past the end of x), for positions < P.
__global__ void pack_kernel(const float* x, int64_t n, const int32_t* chosen, int64_t C, int64_t chunk,
                            float* payload, int64_t P) {
  GCU_GRID_STRIDE(q, C * chunk) {
    if (q >= P) continue;
    const int64_t j = q / chunk, t = q % chunk;
    const int64_t i = static_cast<int64_t>(chosen[j]) * chunk + t;
    payload[q] = i < n ? x[i] : 0.0f;
  }
}

// out[chosen[j]*chunk + t] = payload[j*chunk + t] * scale (out zeroed before).
__global__ void unpack_kernel(const float* payload, const int32_t* chosen, int64_t C, int64_t chunk,
                              int64_t n, float scale, float* out) {
  GCU_GRID_STRIDE(q, C * chunk) {
    const int64_t j = q / chunk, t = q % chunk;
    const int64_t i = static_cast<int64_t>(chosen[j]) * chunk + t;
    // NaN payload kept, as on the CPU; scale 1 (one rank, roundtrip) is a copy on both, so
    // a signalling NaN stays signalling (x86 and CUDA arithmetic would quiet it).
    if (i < n) out[i] = scale == 1.0f ? payload[q] : x86_mul(payload[q], scale);
  }
}

class TopkcCuda final : public CudaScheme {
 public:
  explicit TopkcCuda(std::unique_ptr<Compressor> cpu) : CudaScheme(std::move(cpu)) {
    const SchemeArgs a = params();
    k_ = a.get_double("k", 0.01);
    chunk_ = a.get_int("chunk", 256);
  }
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    const int64_t m = (n + chunk_ - 1) / chunk_;
    compress::sparse::check_int32_range("topkc", b.index, m);
    const int64_t C = compress::sparse::kept_count(m, k_);
    if (C < m) {
      norms(b.data, n, m);
      comm.all_reduce(norms_.get(), m, compress::WireType::F32, compress::ReduceOp::Sum);
      choose(m, C);
    } else {
      iota_kernel<<<grid_for(m), kBlock, 0, stream()>>>(chosen_.reserve(static_cast<size_t>(m)), m);
      CUDA_CHECK_LAUNCH();
    }
    const int64_t P = pack(b.data, n, C);
    if (local) unpack(C, n, 1.0f, local);
    comm.all_reduce(payload_.get(), P, compress::WireType::F32, compress::ReduceOp::Sum);
    unpack(C, n, 1.0f / static_cast<float>(comm.world_size()), b.data);
  }
  void roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    const int64_t m = (n + chunk_ - 1) / chunk_;
    const int64_t C = compress::sparse::kept_count(m, k_);
    norms(in, n, m);
    choose(m, C);
    pack(in, n, C);
    unpack(C, n, 1.0f, out);
  }

 private:
  void norms(const float* x, int64_t n, int64_t m) {
    norms_kernel<<<grid_for(m), kBlock, 0, stream()>>>(x, n, chunk_, m, norms_.reserve(static_cast<size_t>(m)));
    CUDA_CHECK_LAUNCH();
  }
  void choose(int64_t m, int64_t C) {
    sparse::select_topk(norms_.get(), m, C, scratch_v_.reserve(static_cast<size_t>(C)),
                        chosen_.reserve(static_cast<size_t>(C)), select_);
  }
  int64_t pack(const float* x, int64_t n, int64_t C) {
    const int64_t P = C * chunk_ < n ? C * chunk_ : n;
    pack_kernel<<<grid_for(C * chunk_), kBlock, 0, stream()>>>(x, n, chosen_.get(), C, chunk_,
                                                  payload_.reserve(static_cast<size_t>(P)), P);
    CUDA_CHECK_LAUNCH();
    return P;
  }
  void unpack(int64_t C, int64_t n, float scale, float* out) {
    zero(out, n);
    unpack_kernel<<<grid_for(C * chunk_), kBlock, 0, stream()>>>(payload_.get(), chosen_.get(), C, chunk_, n, scale, out);
    CUDA_CHECK_LAUNCH();
  }
  double k_ = 0.01;
  int64_t chunk_ = 256;
  DeviceArray<float> norms_, scratch_v_, payload_;
  DeviceArray<int32_t> chosen_;
  sparse::SelectScratch select_;
};

}  // namespace

std::unique_ptr<Compressor> make_topkc_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<TopkcCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
