// "bf16" on the GPU (compressors/bf16.h, wire format documented there): h = bf16(x * (1/p)),
// one all-reduce of BF16, x = float(h). Bit-identical to the CPU words (low_precision.cuh).
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "low_precision.cuh"
#include "schemes_cuda.h"

namespace gcu::cuda {
namespace {

// The CPU skips the multiply when scale == 1 (keeps NaN payloads); so does this.
__global__ void encode_kernel(const float* x, uint16_t* h, int64_t n, float scale) {
  if (scale == 1.0f) {
    GCU_GRID_STRIDE(i, n) h[i] = lowp::f2bf(x[i]);
  } else {
    GCU_GRID_STRIDE(i, n) h[i] = lowp::f2bf(x86_mul(x[i], scale));
  }
}
__global__ void decode_kernel(const uint16_t* h, float* x, int64_t n, float scale) {
  if (scale == 1.0f) {
    GCU_GRID_STRIDE(i, n) x[i] = lowp::bf2f(h[i]);
  } else {
    GCU_GRID_STRIDE(i, n) x[i] = x86_mul(lowp::bf2f(h[i]), scale);
  }
}
void encode(const float* x, uint16_t* h, int64_t n, float scale) {
  encode_kernel<<<grid_for(n), kBlock, 0, stream()>>>(x, h, n, scale);
  CUDA_CHECK_LAUNCH();
}
void decode(const uint16_t* h, float* x, int64_t n, float scale) {
  decode_kernel<<<grid_for(n), kBlock, 0, stream()>>>(h, x, n, scale);
  CUDA_CHECK_LAUNCH();
}

class Bf16Cuda final : public CudaScheme {
 public:
  using CudaScheme::CudaScheme;
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    const int p = comm.world_size();
    uint16_t* w = wire_.reserve(static_cast<size_t>(n));
    encode(b.data, w, n, 1.0f / static_cast<float>(p));
    if (local) decode(w, local, n, static_cast<float>(p));
    comm.all_reduce(w, n, compress::WireType::BF16, compress::ReduceOp::Sum);
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
  DeviceArray<uint16_t> wire_;
};

}  // namespace

std::unique_ptr<Compressor> make_bf16_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<Bf16Cuda>(std::move(cpu));
}

}  // namespace gcu::cuda
