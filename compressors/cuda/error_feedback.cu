// Error feedback around a CUDA scheme: "ef(<inner>)" made with Device::CUDA. The same
// algorithm and checkpoint format ("GCUEF1") as compressors/error_feedback.h, with the
// residuals in device memory:
//   x = g + e;  c = C(x) (the inner scheme's step_with_local / roundtrip);  e <- x - c.
// make_compressor() builds it (registry.cpp, CUDA builds) instead of the CPU wrapper.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"

#include "compressors/state_io.h"

#include <map>
#include <vector>

namespace gcu::cuda {
namespace {

// g += e; e = g (e holds x until the inner step has produced c).
__global__ void compensate_kernel(float* g, float* e, int64_t n) {
  GCU_GRID_STRIDE(i, n) {
    const float x = __fadd_rn(g[i], e[i]);
    g[i] = x;
    e[i] = x;
  }
}
__global__ void add_kernel(float* e, const float* in, int64_t n) {
  GCU_GRID_STRIDE(i, n) e[i] = __fadd_rn(e[i], in[i]);
}
__global__ void sub_kernel(float* e, const float* c, int64_t n) {
  GCU_GRID_STRIDE(i, n) e[i] = __fsub_rn(e[i], c[i]);
}

class ErrorFeedbackCuda final : public Compressor {
 public:
  explicit ErrorFeedbackCuda(std::unique_ptr<Compressor> inner) : inner_(std::move(inner)) {}
  std::string spec() const override { return "ef(" + inner_->spec() + ")"; }
  compress::Device device() const override { return compress::Device::CUDA; }
  SchemeTraits traits() const override {
    SchemeTraits t = inner_->traits();
    t.error_feedback = true;
    t.stateful = true;
    return t;
  }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override {
    return inner_->plan(layout, world);
  }
  void step(GradBucket b, Communicator& comm) override { step_with_local(b, comm, nullptr); }
  void step_with_local(GradBucket b, Communicator& comm, float* local) override {
    StreamScope scope(comm.device_stream());
    const int64_t n = b.numel();
    if (n == 0) return inner_->step(b, comm);
    float* e = residual(b.index, n);
    compensate_kernel<<<grid_for(n), kBlock, 0, stream()>>>(b.data, e, n);
    CUDA_CHECK_LAUNCH();
    float* c = local_.reserve(static_cast<size_t>(n));
    inner_->step_with_local(b, comm, c);
    sub_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, c, n);
    CUDA_CHECK_LAUNCH();
    if (local) CUDA_CHECK(cudaMemcpyAsync(local, c, n * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    float* e = residual(bucket_index, n);
    add_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, in, n);
    CUDA_CHECK_LAUNCH();
    inner_->roundtrip(bucket_index, e, out, layout);
    sub_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, out, n);
    CUDA_CHECK_LAUNCH();
  }
  std::vector<uint8_t> save_state() const override {
    compress::StateWriter w("GCUEF1");
    w.put<uint64_t>(res_.size());
    for (const auto& [bucket, slot] : res_) {
      w.put<int64_t>(bucket);
      w.put<uint64_t>(static_cast<uint64_t>(slot.second));
      const std::vector<float> h = slot.first.download(static_cast<size_t>(slot.second));
      w.put_bytes(h.data(), h.size() * sizeof(float));
    }
    const std::vector<uint8_t> inner = inner_->save_state();
    w.put<uint64_t>(inner.size());
    w.put_bytes(inner.data(), inner.size());
    return w.take();
  }
  void load_state(const std::vector<uint8_t>& state) override {
    res_.clear();
    if (state.empty()) return inner_->load_state({});
    compress::StateReader r(state, "GCUEF1", spec());
    const auto count = r.get<uint64_t>();
    for (uint64_t i = 0; i < count; ++i) {
      const auto bucket = r.get<int64_t>();
      const auto n = r.get<uint64_t>();
      if (n > r.remaining() / sizeof(float))
        throw compress::CompressorError(spec() + ": checkpoint residual of bucket " + std::to_string(bucket) +
                                        " claims " + std::to_string(n) + " floats, more than the state holds");
      std::vector<float> h(n);
      r.get_bytes(h.data(), n * sizeof(float));
      auto& slot = res_[bucket];
      slot.second = static_cast<int64_t>(n);
      slot.first.upload(h.data(), n);
    }
    const auto inner_n = r.get<uint64_t>();
    if (inner_n > r.remaining()) throw compress::CompressorError(spec() + ": checkpoint inner state truncated");
    std::vector<uint8_t> inner(inner_n);
    r.get_bytes(inner.data(), inner_n);
    r.expect_end();
    inner_->load_state(inner);
  }

 private:
  float* residual(int64_t bucket, int64_t n) {
    auto it = res_.find(bucket);
    if (it == res_.end()) {
      auto& slot = res_[bucket];
      slot.second = n;
      slot.first.reserve(static_cast<size_t>(n));
      zero(slot.first.get(), n);
      return slot.first.get();
    }
    if (it->second.second != n)
      throw compress::CompressorError(spec() + ": bucket " + std::to_string(bucket) + " has " + std::to_string(n) +
                                      " elements but its residual has " + std::to_string(it->second.second));
    return it->second.first.get();
  }
  std::unique_ptr<Compressor> inner_;
  std::map<int64_t, std::pair<DeviceArray<float>, int64_t>> res_;
  DeviceArray<float> local_;
};

}  // namespace

std::unique_ptr<Compressor> make_error_feedback_cuda(std::unique_ptr<Compressor> inner) {
  if (!inner || inner->device() != compress::Device::CUDA)
    throw compress::CompressorError("ef() on CUDA needs a CUDA inner scheme");
  return std::make_unique<ErrorFeedbackCuda>(std::move(inner));
}

}  // namespace gcu::cuda
