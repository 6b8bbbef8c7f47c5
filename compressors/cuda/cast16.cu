// "fp16" and "bf16" on the GPU (the CPU twin is compressors/cast16.cpp; wire formats in
// compressors/fp16.h and bf16.h): h = cast16(x * (1/p)), one all-reduce of 16-bit words,
// x = float(h). Bit-identical to the CPU words (low_precision.cuh).
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "low_precision.cuh"
#include "schemes_cuda.h"

namespace gcu::cuda {
namespace {

struct Fp16Format {
  static constexpr compress::WireType kWire = compress::WireType::F16;
  static __device__ uint16_t to(float x) { return lowp::f2h(x); }
  static __device__ float from(uint16_t h) { return lowp::h2f(h); }
};
struct Bf16Format {
  static constexpr compress::WireType kWire = compress::WireType::BF16;
  static __device__ uint16_t to(float x) { return lowp::f2bf(x); }
  static __device__ float from(uint16_t h) { return lowp::bf2f(h); }
};

// The CPU skips the multiply when scale == 1 (keeps NaN payloads); so does this.
template <class F>
__global__ void encode_kernel(const float* x, uint16_t* h, int64_t n, float scale) {
  if (scale == 1.0f) {
    GCU_GRID_STRIDE(i, n) h[i] = F::to(x[i]);
  } else {
    GCU_GRID_STRIDE(i, n) h[i] = F::to(x86_mul(x[i], scale));
  }
}
template <class F>
__global__ void decode_kernel(const uint16_t* h, float* x, int64_t n, float scale) {
  if (scale == 1.0f) {
    GCU_GRID_STRIDE(i, n) x[i] = F::from(h[i]);
  } else {
    GCU_GRID_STRIDE(i, n) x[i] = x86_mul(F::from(h[i]), scale);
  }
}

template <class F>
class Cast16Cuda final : public CudaScheme {
 public:
  using CudaScheme::CudaScheme;
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    const int p = comm.world_size();
    uint16_t* w = wire_.reserve(static_cast<size_t>(n));
    encode(b.data, w, n, 1.0f / static_cast<float>(p));
    if (local) decode(w, local, n, static_cast<float>(p));
    comm.all_reduce(w, n, F::kWire, compress::ReduceOp::Sum);
    decode(w, b.data, n, 1.0f);
  }
  void roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    uint16_t* w = wire_.reserve(static_cast<size_t>(n));
    encode(in, w, n, 1.0f);
    decode(w, out, n, 1.0f);
  }

 private:
  static void encode(const float* x, uint16_t* h, int64_t n, float scale) {
    encode_kernel<F><<<grid_for(n), kBlock, 0, stream()>>>(x, h, n, scale);
    CUDA_CHECK_LAUNCH();
  }
  static void decode(const uint16_t* h, float* x, int64_t n, float scale) {
    decode_kernel<F><<<grid_for(n), kBlock, 0, stream()>>>(h, x, n, scale);
    CUDA_CHECK_LAUNCH();
  }
  DeviceArray<uint16_t> wire_;
};

}  // namespace

std::unique_ptr<Compressor> make_fp16_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<Cast16Cuda<Fp16Format>>(std::move(cpu));
}
std::unique_ptr<Compressor> make_bf16_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<Cast16Cuda<Bf16Format>>(std::move(cpu));
}

}  // namespace gcu::cuda
