// "topk" on the GPU (compressors/topk.h, wire format documented there): exact top-K by
// magnitude (radix select, ties to the lowest index, ascending indices), all-gather of
// values and indices, rank-ordered scatter-add / p. Same bytes as the CPU version.
#include "cuda_scheme.h"
#include "schemes_cuda.h"
#include "sparse.cuh"

#include "compressors/sparse.h"

namespace gcu::cuda {
namespace {

class TopkCuda final : public CudaScheme {
 public:
  explicit TopkCuda(std::unique_ptr<Compressor> cpu)
      : CudaScheme(std::move(cpu)), k_(params().get_double("k", 0.01)) {}
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("topk", b.index, n);
    const int64_t K = compress::sparse::kept_count(n, k_);
    select(b.data, n, K);
    if (local) sparse::scatter_add(values_.get(), indices_.get(), K, 1, local, n, 1.0f);
    sparse::allgather_decode(comm, values_.get(), indices_.get(), K, b.data, n, all_v_, all_i_);
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("topk", bucket_index, n);
    const int64_t K = compress::sparse::kept_count(n, k_);
    select(in, n, K);
    sparse::scatter_add(values_.get(), indices_.get(), K, 1, out, n, 1.0f);
  }

 private:
  void select(const float* x, int64_t n, int64_t K) {
    values_.reserve(static_cast<size_t>(K));
    indices_.reserve(static_cast<size_t>(K));
    sparse::select_topk(x, n, K, values_.get(), indices_.get(), scratch_);
  }
  double k_;
  DeviceArray<float> values_, all_v_;
  DeviceArray<int32_t> indices_, all_i_;
  sparse::SelectScratch scratch_;
};

}  // namespace

std::unique_ptr<Compressor> make_topk_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<TopkCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
