// "efsignsgd" on the GPU (compressors/efsignsgd.h): the sign wire format of signsgd
// (sign_encoder.cuh), sent for q = g + e, with device residuals (checkpointed in the
// CPU's format) and the mean-of-scales decode.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"
#include "sign_encoder.cuh"

#include "compressors/state_io.h"

#include <cstring>
#include <map>
#include <vector>

namespace gcu::cuda {
namespace {

// efsignsgd: q = e + g in place in e.
__global__ void add_kernel(float* e, const float* g, int64_t n) {
  GCU_GRID_STRIDE(i, n) e[i] = __fadd_rn(e[i], g[i]);
}
// e <- q - copysign(s, q); zeros when the scale word is not finite.
__global__ void ef_update_kernel(float* e, int64_t n, const uint64_t* scale_word) {
  const float s = __uint_as_float(static_cast<uint32_t>(*scale_word));
  const bool finite = isfinite(s);
  GCU_GRID_STRIDE(i, n) e[i] = finite ? __fsub_rn(e[i], copysignf(s, e[i])) : 0.0f;
}
// out_i = sum_r (scale_r / p) * (bit ? -1 : +1), accumulated from 0 in rank order; NaN
// everywhere when a scale is not finite.
__global__ void sum_signs_kernel(const uint64_t* all, int64_t stride, int p, int64_t n, float* out) {
  bool finite = true;
  for (int r = 0; r < p; ++r)
    finite = finite && isfinite(__uint_as_float(static_cast<uint32_t>(all[r * stride + stride - 1])));
  GCU_GRID_STRIDE(i, n) {
    if (!finite) { out[i] = __int_as_float(0x7fc00000); continue; }
    float acc = 0.0f;
    for (int r = 0; r < p; ++r) {
      const float sr = __fdiv_rn(__uint_as_float(static_cast<uint32_t>(all[r * stride + stride - 1])),
                                 static_cast<float>(p));
      acc = __fadd_rn(acc, ((all[r * stride + (i >> 6)] >> (i & 63)) & 1u) ? -sr : sr);
    }
    out[i] = acc;
  }
}
// A non-finite scale on any rank resets the residual.
__global__ void ef_reset_kernel(const uint64_t* all, int64_t stride, int p, float* e, int64_t n) {
  bool finite = true;
  for (int r = 0; r < p; ++r)
    finite = finite && isfinite(__uint_as_float(static_cast<uint32_t>(all[r * stride + stride - 1])));
  if (finite) return;
  GCU_GRID_STRIDE(i, n) e[i] = 0.0f;
}

class EfSignSgdCuda final : public CudaScheme {
 public:
  using CudaScheme::CudaScheme;
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    float* e = residual(b.index, n);
    add_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, b.data, n);
    CUDA_CHECK_LAUNCH();
    uint64_t* words = enc_.encode(e, n);
    const int64_t count = (n + 63) / 64 + 1;
    ef_update_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, n, words + count - 1);
    CUDA_CHECK_LAUNCH();
    if (local) decode(words, 1, n, local);
    const int p = comm.world_size();
    uint64_t* all = recv_.reserve(static_cast<size_t>(count) * p);
    comm.all_gather(words, all, count, compress::WireType::U64);
    decode(all, p, n, b.data);
    ef_reset_kernel<<<grid_for(n), kBlock, 0, stream()>>>(all, count, p, e, n);
    CUDA_CHECK_LAUNCH();
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    float* e = residual(bucket_index, n);
    add_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, in, n);
    CUDA_CHECK_LAUNCH();
    uint64_t* words = enc_.encode(e, n);
    ef_update_kernel<<<grid_for(n), kBlock, 0, stream()>>>(e, n, words + (n + 63) / 64);
    CUDA_CHECK_LAUNCH();
    decode(words, 1, n, out);
  }
  // The CPU's format (efsignsgd.cpp): magic, u64 count, per bucket i64 index, u64 length,
  // floats.
  std::vector<uint8_t> save_state() const override {
    compress::StateWriter w(kMagic);
    w.put(static_cast<uint64_t>(res_.size()));
    for (const auto& [index, e] : res_) {
      const uint64_t len = static_cast<uint64_t>(e.second);
      w.put(index);
      w.put(len);
      const std::vector<float> h = e.first.download(len);
      w.put_bytes(h.data(), len * sizeof(float));
    }
    return w.take();
  }
  void load_state(const std::vector<uint8_t>& state) override {
    // Parse with the CPU twin (same format, same checks), then copy its residuals over.
    cpu_->load_state(state);
    res_.clear();
    if (state.empty()) return;
    compress::StateReader r(state, kMagic, "efsignsgd");
    const auto count = r.get<uint64_t>();
    for (uint64_t k = 0; k < count; ++k) {
      const auto index = r.get<int64_t>();
      const auto len = r.get<uint64_t>();
      std::vector<float> h(len);
      r.get_bytes(h.data(), len * sizeof(float));
      auto& slot = res_[index];
      slot.second = static_cast<int64_t>(len);
      slot.first.upload(h.data(), len);
    }
  }

 private:
  static constexpr const char* kMagic = "gcu.efsignsgd/1";
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
      throw compress::CompressorError("efsignsgd: bucket " + std::to_string(bucket) + " has " + std::to_string(n) +
                                      " elements, but its residual has " + std::to_string(it->second.second));
    return it->second.first.get();
  }
  void decode(const uint64_t* all, int p, int64_t n, float* out) {
    sum_signs_kernel<<<grid_for(n), kBlock, 0, stream()>>>(all, (n + 63) / 64 + 1, p, n, out);
    CUDA_CHECK_LAUNCH();
  }
  SignEncoder enc_;
  DeviceArray<uint64_t> recv_;
  std::map<int64_t, std::pair<DeviceArray<float>, int64_t>> res_;  // residual, length
};

}  // namespace

std::unique_ptr<Compressor> make_efsignsgd_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<EfSignSgdCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
