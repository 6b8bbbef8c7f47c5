// "none" on the GPU: the uncompressed FP32 baseline (compressors/none.h). One all-reduce
// of the bucket as it is, then x /= p, exactly as the CPU version (same float ops).
#include "cuda_scheme.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"

namespace gcu::cuda {
namespace {

class NoneCuda final : public CudaScheme {
 public:
  using CudaScheme::CudaScheme;
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    local_by_roundtrip(b, local);
    const int64_t n = b.numel();
    comm.all_reduce(b.data, n, compress::WireType::F32, compress::ReduceOp::Sum);
    scale_inplace(b.data, n, 1.0f / static_cast<float>(comm.world_size()));
  }
  void roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n > 0 && in != out)
      CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
  }
};

}  // namespace

std::unique_ptr<Compressor> make_none_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<NoneCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
