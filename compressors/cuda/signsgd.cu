// "signsgd" on the GPU (compressors/signsgd.h, wire format documented there): sign bits
// packed with warp ballots into U64 words + one scale word (mean |g|), one all-gather,
// majority vote per element over the p ranks' words. Sign words are bit-identical to the
// CPU's; the scale (a sum of |g| in another order) agrees to float rounding.
// Also "efsignsgd" (compressors/efsignsgd.h): the same wire format, sent for q = g + e,
// with device residuals (checkpointed in the CPU's format) and the mean-of-scales decode.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"

#include <cub/device/device_reduce.cuh>

#include <cstring>
#include <map>
#include <vector>

namespace gcu::cuda {
namespace {

constexpr int kWordsPerBlock = kBlock / 32;  // one warp per 64-element word

// words[w] = sign bits of x[64w, 64w+64); partial[w] = sum |x| of the word in float.
__global__ void pack_kernel(const float* x, int64_t n, int64_t nw, uint64_t* words, double* partial) {
  const int lane = threadIdx.x & 31;
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * kWordsPerBlock + (threadIdx.x >> 5); w < nw;
       w += static_cast<int64_t>(gridDim.x) * kWordsPerBlock) {
    const int64_t i0 = w * 64 + lane, i1 = i0 + 32;
    const uint32_t u0 = i0 < n ? __float_as_uint(x[i0]) : 0u;
    const uint32_t u1 = i1 < n ? __float_as_uint(x[i1]) : 0u;
    const unsigned lo = __ballot_sync(0xffffffffu, u0 >> 31);
    const unsigned hi = __ballot_sync(0xffffffffu, u1 >> 31);
    float a = __fadd_rn(__uint_as_float(u0 & 0x7fffffffu), __uint_as_float(u1 & 0x7fffffffu));
    for (int off = 16; off > 0; off >>= 1) a = __fadd_rn(a, __shfl_down_sync(0xffffffffu, a, off));
    if (lane == 0) {
      words[w] = static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 32);
      partial[w] = a;
    }
  }
}

// The scale word: float bits of sum/n, NaN when the sum is not finite.
__global__ void scale_word_kernel(const double* sum, int64_t n, uint64_t* word) {
  const double s = *sum;
  const float scale = isfinite(s) ? static_cast<float>(s / static_cast<double>(n)) : __int_as_float(0x7fc00000);
  *word = __float_as_uint(scale);
}

// S = mean of the p scales (double), NaN if any is not finite; 1 when unscaled.
__global__ void vote_scale_kernel(const uint64_t* all, int64_t stride, int p, bool scaled, float* S) {
  double s = 0;
  bool finite = true;
  for (int r = 0; r < p; ++r) {
    const float sr = __uint_as_float(static_cast<uint32_t>(all[r * stride + stride - 1]));
    finite = finite && isfinite(sr);
    s += sr;
  }
  *S = !finite ? __int_as_float(0x7fc00000) : (scaled ? static_cast<float>(s / p) : 1.0f);
}

__global__ void vote_kernel(const uint64_t* all, int64_t stride, int p, int64_t n, const float* Sp,
                            float* out) {
  const float S = *Sp;
  const bool nan = isnan(S);
  GCU_GRID_STRIDE(i, n) {
    if (nan) { out[i] = S; continue; }
    const int64_t w = i >> 6;
    const int bit = static_cast<int>(i & 63);
    int cnt = 0;
    for (int r = 0; r < p; ++r) cnt += static_cast<int>((all[r * stride + w] >> bit) & 1u);
    out[i] = 2 * cnt > p ? -S : (2 * cnt < p ? S : 0.0f);
  }
}

// Sign words + scale word of x (shared by signsgd and efsignsgd).
class SignEncoder {
 public:
  uint64_t* encode(const float* x, int64_t n) {
    const int64_t nw = (n + 63) / 64;
    uint64_t* words = send_.reserve(static_cast<size_t>(nw + 1));
    double* partial = partial_.reserve(static_cast<size_t>(nw));
    double* sum = sum_.reserve(1);
    const int64_t blocks = (nw + kWordsPerBlock - 1) / kWordsPerBlock;
    pack_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kBlock>>>(x, n, nw, words, partial);
    CUDA_CHECK_LAUNCH();
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, partial, sum, static_cast<int>(nw)));
    void* temp = temp_.reserve(temp_bytes);
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, partial, sum, static_cast<int>(nw)));
    scale_word_kernel<<<1, 1>>>(sum, n, words + nw);
    CUDA_CHECK_LAUNCH();
    return words;
  }
  uint64_t* words() const { return send_.get(); }

 private:
  DeviceArray<uint64_t> send_;
  DeviceArray<double> partial_, sum_;
  DeviceArray<unsigned char> temp_;
};

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

class SignSgdCuda final : public CudaScheme {
 public:
  explicit SignSgdCuda(std::unique_ptr<Compressor> cpu)
      : CudaScheme(std::move(cpu)), scaled_(params().get_bool("scaled", true)) {}
  void step(GradBucket b, Communicator& comm) override { step_with_local(b, comm, nullptr); }
  void step_with_local(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    encode(b.data, n);
    const int64_t count = (n + 63) / 64 + 1;
    if (local) decode(enc_.words(), 1, n, local);
    const int p = comm.world_size();
    uint64_t* all = recv_.reserve(static_cast<size_t>(count) * p);
    comm.all_gather(enc_.words(), all, count, compress::WireType::U64);
    decode(all, p, n, b.data);
  }
  void roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    encode(in, n);
    decode(enc_.words(), 1, n, out);
  }

 private:
  void encode(const float* x, int64_t n) { enc_.encode(x, n); }
  void decode(const uint64_t* all, int p, int64_t n, float* out) {
    float* S = S_.reserve(1);
    const int64_t stride = (n + 63) / 64 + 1;
    vote_scale_kernel<<<1, 1>>>(all, stride, p, scaled_, S);
    CUDA_CHECK_LAUNCH();
    vote_kernel<<<grid_for(n), kBlock>>>(all, stride, p, n, S, out);
    CUDA_CHECK_LAUNCH();
  }
  bool scaled_;
  SignEncoder enc_;
  DeviceArray<uint64_t> recv_;
  DeviceArray<float> S_;
};

class EfSignSgdCuda final : public CudaScheme {
 public:
  using CudaScheme::CudaScheme;
  void step(GradBucket b, Communicator& comm) override { step_with_local(b, comm, nullptr); }
  void step_with_local(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    float* e = residual(b.index, n);
    add_kernel<<<grid_for(n), kBlock>>>(e, b.data, n);
    CUDA_CHECK_LAUNCH();
    uint64_t* words = enc_.encode(e, n);
    const int64_t count = (n + 63) / 64 + 1;
    ef_update_kernel<<<grid_for(n), kBlock>>>(e, n, words + count - 1);
    CUDA_CHECK_LAUNCH();
    if (local) decode(words, 1, n, local);
    const int p = comm.world_size();
    uint64_t* all = recv_.reserve(static_cast<size_t>(count) * p);
    comm.all_gather(words, all, count, compress::WireType::U64);
    decode(all, p, n, b.data);
    ef_reset_kernel<<<grid_for(n), kBlock>>>(all, count, p, e, n);
    CUDA_CHECK_LAUNCH();
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    float* e = residual(bucket_index, n);
    add_kernel<<<grid_for(n), kBlock>>>(e, in, n);
    CUDA_CHECK_LAUNCH();
    uint64_t* words = enc_.encode(e, n);
    ef_update_kernel<<<grid_for(n), kBlock>>>(e, n, words + (n + 63) / 64);
    CUDA_CHECK_LAUNCH();
    decode(words, 1, n, out);
  }
  // The CPU's format (efsignsgd.cpp): magic, u64 count, per bucket i64 index, u64 length,
  // floats.
  std::vector<uint8_t> save_state() const override {
    std::vector<uint8_t> out(kMagic, kMagic + std::strlen(kMagic));
    auto put = [&](const void* p, size_t n) {
      out.insert(out.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    };
    const uint64_t count = res_.size();
    put(&count, 8);
    for (const auto& [index, e] : res_) {
      const uint64_t len = e.second;
      put(&index, 8);
      put(&len, 8);
      const std::vector<float> h = e.first.download(len);
      put(h.data(), len * sizeof(float));
    }
    return out;
  }
  void load_state(const std::vector<uint8_t>& state) override {
    // Parse with the CPU twin (same format, same checks), then copy its residuals over.
    cpu_->load_state(state);
    res_.clear();
    if (state.empty()) return;
    const size_t ml = std::strlen(kMagic);
    size_t pos = ml;
    auto get = [&](void* p, size_t n) { std::memcpy(p, state.data() + pos, n); pos += n; };
    uint64_t count = 0;
    get(&count, 8);
    for (uint64_t k = 0; k < count; ++k) {
      int64_t index = 0;
      uint64_t len = 0;
      get(&index, 8);
      get(&len, 8);
      auto& slot = res_[index];
      slot.second = static_cast<int64_t>(len);
      slot.first.upload(reinterpret_cast<const float*>(state.data() + pos), len);
      pos += len * sizeof(float);
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
    sum_signs_kernel<<<grid_for(n), kBlock>>>(all, (n + 63) / 64 + 1, p, n, out);
    CUDA_CHECK_LAUNCH();
  }
  SignEncoder enc_;
  DeviceArray<uint64_t> recv_;
  std::map<int64_t, std::pair<DeviceArray<float>, int64_t>> res_;  // residual, length
};

}  // namespace

std::unique_ptr<Compressor> make_signsgd_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<SignSgdCuda>(std::move(cpu));
}
std::unique_ptr<Compressor> make_efsignsgd_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<EfSignSgdCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
