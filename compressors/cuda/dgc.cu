// "dgc" on the GPU (compressors/dgc.h: selection and wire format there): the same random
// sample (rng.h) of magnitudes, its ks-th largest key as threshold (exact radix select on
// the sample), then either the exact top-K of the bucket (when at least K elements pass
// the threshold) or every passing element plus zero padding (value 0, index 0) up to K;
// all-gather of values + indices and the topk decode. Identical bytes to the CPU. State:
// the per-bucket step counters in the CPU's "GCUDGC1" format.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"
#include "sparse.cuh"

#include "compressors/rng.h"
#include "compressors/sparse.h"
#include "compressors/state_io.h"

#include <map>

namespace gcu::cuda {
namespace {

constexpr uint64_t kSalt = 0x646763ULL;  // dgc.cpp's salt

__global__ void sample_kernel(const float* x, uint64_t n, uint64_t key, int64_t S, float* samples) {
  GCU_GRID_STRIDE(j, S) {
    const uint64_t s = (static_cast<uint64_t>(compress::rng::bits32(key, static_cast<uint64_t>(j))) * n) >> 32;
    samples[j] = x[s];
  }
}

// Bounds "every key >= the sample's threshold T" (T = the sample selection's lo).
__global__ void at_least_kernel(const sparse::SelectState* sample, sparse::SelectState* st) {
  st->hi = sample->lo;
  st->lo = sample->lo;
  st->ties = 0;
}

class DgcCuda final : public CudaScheme {
 public:
  explicit DgcCuda(std::unique_ptr<Compressor> cpu) : CudaScheme(std::move(cpu)) {
    const SchemeArgs a = params();
    k_ = a.get_double("k", 0.01);
    sample_ = a.get_double("sample", 0.01);
    seed_ = static_cast<uint64_t>(a.get_int("seed", 0));
  }
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("dgc", b.index, n);
    const int64_t K = select(b.data, n, b.index, steps_[b.index]++);
    if (local) sparse::scatter_add(values_.get(), indices_.get(), K, 1, local, n, 1.0f);
    sparse::allgather_decode(comm, values_.get(), indices_.get(), K, b.data, n, all_v_, all_i_);
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("dgc", bucket_index, n);
    const int64_t K = select(in, n, bucket_index, steps_[bucket_index]++);
    sparse::scatter_add(values_.get(), indices_.get(), K, 1, out, n, 1.0f);
  }
  std::vector<uint8_t> save_state() const override {
    compress::StateWriter w("GCUDGC1");
    w.put<uint64_t>(steps_.size());
    for (const auto& [bucket, step] : steps_) {
      w.put<int64_t>(bucket);
      w.put<uint64_t>(step);
    }
    return w.take();
  }
  void load_state(const std::vector<uint8_t>& state) override {
    steps_.clear();
    if (state.empty()) return;
    compress::StateReader r(state, "GCUDGC1", spec());
    const auto count = r.get<uint64_t>();
    for (uint64_t i = 0; i < count; ++i) {
      const auto bucket = r.get<int64_t>();
      steps_[bucket] = r.get<uint64_t>();
    }
    r.expect_end();
  }

 private:
  // Fills values_/indices_ with K pairs; returns K.
  int64_t select(const float* x, int64_t n, int64_t bucket, uint64_t step) {
    const int64_t K = compress::sparse::kept_count(n, k_);
    const int64_t S = compress::sparse::kept_count(n, sample_);
    const int64_t ks = compress::sparse::kept_count(S, k_);
    const uint64_t key = compress::rng::stream_key(seed_, static_cast<uint64_t>(bucket), step, kSalt);
    float* values = values_.reserve(static_cast<size_t>(K));
    int32_t* indices = indices_.reserve(static_cast<size_t>(K));
    float* samples = samples_.reserve(static_cast<size_t>(S));
    sample_kernel<<<grid_for(S), kBlock, 0, stream()>>>(x, static_cast<uint64_t>(n), key, S, samples);
    CUDA_CHECK_LAUNCH();
    sparse::select_topk(samples, S, ks, sample_v_.reserve(static_cast<size_t>(ks)),
                        sample_i_.reserve(static_cast<size_t>(ks)), sample_sel_);
    at_least_kernel<<<1, 1, 0, stream()>>>(sparse::state_of(sample_sel_), sparse::state_of(sel_));
    CUDA_CHECK_LAUNCH();
    const int64_t c = sparse::count_selection(x, n, sel_);
    if (c >= K) {
      sparse::select_topk(x, n, K, values, indices, sel_);
    } else {
      sparse::select_by_state(x, n, values, indices, sel_);
      CUDA_CHECK(cudaMemsetAsync(values + c, 0, static_cast<size_t>(K - c) * sizeof(float), stream()));
      CUDA_CHECK(cudaMemsetAsync(indices + c, 0, static_cast<size_t>(K - c) * sizeof(int32_t), stream()));
    }
    return K;
  }
  double k_ = 0.01, sample_ = 0.01;
  uint64_t seed_ = 0;
  std::map<int64_t, uint64_t> steps_;
  DeviceArray<float> values_, all_v_, samples_, sample_v_;
  DeviceArray<int32_t> indices_, all_i_, sample_i_;
  sparse::SelectScratch sel_, sample_sel_;
};

}  // namespace

std::unique_ptr<Compressor> make_dgc_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<DgcCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
