// "randomk" on the GPU (compressors/randomk.h: index definition and wire format there):
// the same K indices as the CPU (Feistel permutation with cycle walking over rng.h's
// counter-based hash, computed per index on the device), gather, one all-reduce of the
// values, scatter * scale / p. Bit-identical to the CPU. State: the per-bucket step
// counters, saved in the CPU's "GCURK1" format so checkpoints move between CPU and GPU.
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

constexpr uint64_t kSalt = 0x72616e646bULL;  // randomk.cpp's salt: all ranks draw the same indices

__global__ void indices_kernel(uint64_t key, int h, uint64_t n, uint64_t offset, int64_t K,
                               const float* x, int32_t* idx, float* values) {
  const uint64_t mask = (uint64_t{1} << h) - 1;
  GCU_GRID_STRIDE(j, K) {
    uint64_t v = static_cast<uint64_t>(j);
    do {
      uint64_t L = v >> h, R = v & mask;
      for (uint64_t r = 0; r < 4; ++r) {
        const uint64_t nl = R;
        R = L ^ (compress::rng::bits32(key + r, R) & mask);
        L = nl;
      }
      v = (L << h) | R;
    } while (v >= n);
    const int32_t i = static_cast<int32_t>((v + offset) % n);
    idx[j] = i;
    if (x) values[j] = x[i];
  }
}

int ceil_log2(uint64_t n) {
  int b = 0;
  while ((uint64_t{1} << b) < n) ++b;
  return b;
}

class RandomkCuda final : public CudaScheme {
 public:
  explicit RandomkCuda(std::unique_ptr<Compressor> cpu) : CudaScheme(std::move(cpu)) {
    const SchemeArgs a = params();
    k_ = a.get_double("k", 0.01);
    seed_ = static_cast<uint64_t>(a.get_int("seed", 0));
    unbiased_ = a.get_bool("unbiased", false);
  }
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("randomk", b.index, n);
    const int64_t K = gather(b.index, b.data, n);
    const float s = scale(n);
    if (local) sparse::scatter_add(values_.get(), idx_.get(), K, 1, local, n, s);
    comm.all_reduce(values_.get(), K, compress::WireType::F32, compress::ReduceOp::Sum);
    sparse::scatter_add(values_.get(), idx_.get(), K, 1, b.data, n, s / static_cast<float>(comm.world_size()));
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    compress::sparse::check_int32_range("randomk", bucket_index, n);
    const int64_t K = gather(bucket_index, in, n);
    sparse::scatter_add(values_.get(), idx_.get(), K, 1, out, n, scale(n));
  }
  std::vector<uint8_t> save_state() const override {
    compress::StateWriter w("GCURK1");
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
    compress::StateReader r(state, "GCURK1", spec());
    const auto count = r.get<uint64_t>();
    for (uint64_t i = 0; i < count; ++i) {
      const auto bucket = r.get<int64_t>();
      steps_[bucket] = r.get<uint64_t>();
    }
    r.expect_end();
  }

 private:
  float scale(int64_t n) const {
    if (!unbiased_ || n == 0) return 1.0f;
    return static_cast<float>(static_cast<double>(n) /
                              static_cast<double>(compress::sparse::kept_count(n, k_)));
  }
  // Draws this step's indices and gathers x at them; returns K.
  int64_t gather(int64_t bucket, const float* x, int64_t n) {
    const int64_t K = compress::sparse::kept_count(n, k_);
    const uint64_t step = steps_[bucket]++;
    const uint64_t key = compress::rng::stream_key(seed_, static_cast<uint64_t>(bucket), step, kSalt);
    const int h = std::max(1, (ceil_log2(static_cast<uint64_t>(n)) + 1) / 2);
    const uint64_t un = static_cast<uint64_t>(n);
    idx_.reserve(static_cast<size_t>(K));
    values_.reserve(static_cast<size_t>(K));
    indices_kernel<<<grid_for(K), kBlock, 0, stream()>>>(key, h, un, compress::rng::mix64(key) % un, K, x, idx_.get(),
                                            values_.get());
    CUDA_CHECK_LAUNCH();
    return K;
  }
  double k_ = 0.01;
  uint64_t seed_ = 0;
  bool unbiased_ = false;
  std::map<int64_t, uint64_t> steps_;
  DeviceArray<int32_t> idx_;
  DeviceArray<float> values_;
};

}  // namespace

std::unique_ptr<Compressor> make_randomk_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<RandomkCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
