// "signsgd" on the GPU (compressors/signsgd.h, wire format documented there): sign bits
// packed with warp ballots into U64 words + one scale word (mean |g|), one all-gather,
// majority vote per element over the p ranks' words. Sign words are bit-identical to the
// CPU's; the scale (a sum of |g| in another order) agrees to float rounding.
// The encoder (sign_encoder.cuh) is shared with efsignsgd.cu.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"
#include "sign_encoder.cuh"

#include <cub/device/device_reduce.cuh>

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

}  // namespace

uint64_t* SignEncoder::encode(const float* x, int64_t n) {
  const int64_t nw = (n + 63) / 64;
  uint64_t* words = send_.reserve(static_cast<size_t>(nw + 1));
  double* partial = partial_.reserve(static_cast<size_t>(nw));
  double* sum = sum_.reserve(1);
  const int64_t blocks = (nw + kWordsPerBlock - 1) / kWordsPerBlock;
  pack_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kBlock, 0, stream()>>>(x, n, nw, words, partial);
  CUDA_CHECK_LAUNCH();
  size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, partial, sum, static_cast<int>(nw), stream()));
  void* temp = temp_.reserve(temp_bytes);
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, partial, sum, static_cast<int>(nw), stream()));
  scale_word_kernel<<<1, 1, 0, stream()>>>(sum, n, words + nw);
  CUDA_CHECK_LAUNCH();
  return words;
}

namespace {

class SignSgdCuda final : public CudaScheme {
 public:
  explicit SignSgdCuda(std::unique_ptr<Compressor> cpu)
      : CudaScheme(std::move(cpu)), scaled_(params().get_bool("scaled", true)) {}
  void run_step(GradBucket b, Communicator& comm, float* local) override {
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
    vote_scale_kernel<<<1, 1, 0, stream()>>>(all, stride, p, scaled_, S);
    CUDA_CHECK_LAUNCH();
    vote_kernel<<<grid_for(n), kBlock, 0, stream()>>>(all, stride, p, n, S, out);
    CUDA_CHECK_LAUNCH();
  }
  bool scaled_;
  SignEncoder enc_;
  DeviceArray<uint64_t> recv_;
  DeviceArray<float> S_;
};

}  // namespace

std::unique_ptr<Compressor> make_signsgd_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<SignSgdCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
