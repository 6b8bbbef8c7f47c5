// "qsgd" and "terngrad" on the GPU (compressors/qsgd.h, terngrad.h: wire format there):
// per-segment scale (L2 norm or max |x|), stochastic levels with the counter-based stream
// of compressors/rng.h (same key, same uniforms as the CPU), sign+level codes packed into
// U32 words, one all-gather, rank-ordered decode. Codes are bit-identical to the CPU's
// when the scales are (max: always; L2: a double sum in another order, so a level can
// flip where |x| s / N + u lies within float rounding of an integer).
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"

#include "compressors/bitpack.h"
#include "compressors/rng.h"

#include <map>
#include <vector>

namespace gcu::cuda {
namespace {

constexpr int64_t kTile = 8192;  // elements per partial reduction; tiles never cross segments

struct Tile {
  int64_t begin, end;
};

// Per tile: sum of squares (double) or max |x| (as double), and a non-finite flag.
__global__ void tile_reduce(const float* x, const Tile* tiles, bool l2, double* part, int* bad) {
  __shared__ double s_acc[kBlock];
  __shared__ int s_bad[kBlock];
  const Tile t = tiles[blockIdx.x];
  double acc = 0;
  int nb = 0;
  for (int64_t i = t.begin + threadIdx.x; i < t.end; i += blockDim.x) {
    const float v = x[i];
    if (l2) {
      acc += static_cast<double>(v) * v;
    } else {
      const float a = fabsf(v);
      acc = a > acc ? a : acc;
      nb += !(a <= 3.4028234663852886e38f);
    }
  }
  s_acc[threadIdx.x] = acc;
  s_bad[threadIdx.x] = nb;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) {
      const double o = s_acc[threadIdx.x + off];
      s_acc[threadIdx.x] = l2 ? s_acc[threadIdx.x] + o : (o > s_acc[threadIdx.x] ? o : s_acc[threadIdx.x]);
      s_bad[threadIdx.x] += s_bad[threadIdx.x + off];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    part[blockIdx.x] = s_acc[0];
    bad[blockIdx.x] = s_bad[0];
  }
}

// Segment k owns tiles [first[k], first[k+1]): scale = sqrt(sum) or max; NaN if not finite.
// Writes the float bits into the wire's scale words.
__global__ void segment_scales(const double* part, const int* bad, const int64_t* first, int64_t S,
                               bool l2, uint32_t* scale_words) {
  GCU_GRID_STRIDE(k, S) {
    double acc = 0;
    int nb = 0;
    for (int64_t t = first[k]; t < first[k + 1]; ++t) {
      acc = l2 ? acc + part[t] : (part[t] > acc ? part[t] : acc);
      nb += bad[t];
    }
    if (l2) {
      nb = isfinite(acc) ? 0 : 1;
      acc = sqrt(acc);
    }
    const float s = nb ? __int_as_float(0x7fc00000) : static_cast<float>(acc);
    scale_words[k] = __float_as_uint(s);
  }
}

// Segment of element i: the last k with seg[k] <= i (seg has S+1 entries, seg[S] = n).
__device__ __forceinline__ int64_t segment_of(const int64_t* seg, int64_t S, int64_t i) {
  int64_t lo = 0, hi = S - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) >> 1;
    if (seg[mid] <= i) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// One thread per output word of 32/width codes (unused codes of the last word are 0).
__global__ void encode_codes(const float* x, int64_t n, const int64_t* seg, int64_t S,
                             const uint32_t* scale_words, uint32_t s, int width, uint64_t key,
                             uint32_t* words, int64_t nw) {
  const int per = 32 / width;
  const uint32_t shift = static_cast<uint32_t>(width - 1);
  const uint32_t klo = static_cast<uint32_t>(key), khi = static_cast<uint32_t>(key >> 32);
  GCU_GRID_STRIDE(w, nw) {
    uint32_t word = 0;
    for (int j = 0; j < per; ++j) {
      const int64_t i = w * per + j;
      if (i >= n) break;
      const float sc = __uint_as_float(scale_words[segment_of(seg, S, i)]);
      if (!isfinite(sc)) continue;  // non-finite input: code 0 (decode gives NaN)
      const float inv = sc > 0.0f ? __fdiv_rn(static_cast<float>(s), sc) : 0.0f;
      const uint32_t u = __float_as_uint(x[i]);
      const float a = __uint_as_float(u & 0x7fffffffu);
      const uint32_t h = compress::rng::hash32(compress::rng::hash32(static_cast<uint32_t>(i) ^ klo) ^ khi ^
                                               static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32));
      const float v = __fadd_rn(__fmul_rn(a, inv), static_cast<float>(h >> 8) * 0x1p-24f);
      uint32_t lvl = static_cast<uint32_t>(static_cast<int32_t>(v));
      lvl = lvl < s ? lvl : s;
      word |= (lvl | ((u >> 31) << shift)) << (j * width);
    }
    words[w] = word;
  }
}

// out[i] = sum over ranks r (in order) of factor * N_{r,k} / s * (+-level_{r,i});
// all NaN when any rank's scale is not finite (flag computed by check_scales).
__global__ void check_scales(const uint32_t* all, int64_t stride, int p, int64_t S, int* bad) {
  int nb = 0;
  for (int r = 0; r < p; ++r)
    for (int64_t k = threadIdx.x; k < S; k += blockDim.x)
      nb += !isfinite(__uint_as_float(all[r * stride + k]));
  nb = __syncthreads_or(nb);
  if (threadIdx.x == 0) *bad = nb;
}

__global__ void decode_codes(const uint32_t* all, int64_t stride, int p, int64_t n, const int64_t* seg,
                             int64_t S, uint32_t s, int width, float factor, const int* bad, float* out) {
  const int per = 32 / width;
  const uint32_t shift = static_cast<uint32_t>(width - 1), mask = (1u << shift) - 1u;
  const uint32_t wmask = width == 32 ? 0xffffffffu : (1u << width) - 1u;
  const bool nan = *bad != 0;
  GCU_GRID_STRIDE(i, n) {
    if (nan) { out[i] = __int_as_float(0x7fc00000); continue; }
    const int64_t k = segment_of(seg, S, i);
    float acc = 0.0f;
    for (int r = 0; r < p; ++r) {
      const uint32_t* rw = all + r * stride;
      const float mult = __fdiv_rn(__fmul_rn(factor, __uint_as_float(rw[k])), static_cast<float>(s));
      const uint32_t c = (rw[S + i / per] >> ((i % per) * width)) & wmask;
      const float v = __fmul_rn(static_cast<float>(c & mask), mult);
      const float sv = (c >> shift) ? -v : v;
      acc = r == 0 ? sv : __fadd_rn(acc, sv);
    }
    out[i] = acc;
  }
}

class LevelCuda final : public CudaScheme {
 public:
  LevelCuda(std::unique_ptr<Compressor> cpu, bool l2) : CudaScheme(std::move(cpu)), l2_(l2) {
    const SchemeArgs a = params();
    levels_ = l2 ? a.get_int("levels", 127) : 1;
    bucket_ = a.get_int("bucket", 0);
    seed_ = static_cast<uint64_t>(a.get_int("seed", 0));
    width_ = compress::bits::code_width(levels_);
  }
  void step(GradBucket b, Communicator& comm) override { step_with_local(b, comm, nullptr); }
  void step_with_local(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    encode(b.data, *b.layout, next_key(b.index, comm.rank()));
    if (local) decode(send_.get(), 1, local);
    const int p = comm.world_size();
    uint32_t* all = recv_.reserve(static_cast<size_t>(stride_) * p);
    comm.all_gather(send_.get(), all, stride_, compress::WireType::U32);
    decode(all, p, b.data);
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    if (layout.numel() == 0) return;
    encode(in, layout, next_key(bucket_index, 0));
    decode(send_.get(), 1, out);
  }

 private:
  uint64_t next_key(int64_t bucket_index, int rank) {
    const uint64_t step = counter_[bucket_index]++;
    return compress::rng::stream_key(seed_, static_cast<uint64_t>(bucket_index), step,
                                     static_cast<uint64_t>(rank));
  }
  // Segments and tiles of this layout, uploaded when they change.
  void prepare(const BucketLayout& layout) {
    std::vector<int64_t> seg = compress::bits::segments_for(layout, bucket_);
    if (seg == seg_host_) return;
    seg_host_ = seg;
    S_ = static_cast<int64_t>(seg.size()) - 1;
    std::vector<Tile> tiles;
    std::vector<int64_t> first{0};
    for (int64_t k = 0; k < S_; ++k) {
      for (int64_t t = seg[k]; t < seg[k + 1]; t += kTile)
        tiles.push_back({t, t + kTile < seg[k + 1] ? t + kTile : seg[k + 1]});
      first.push_back(static_cast<int64_t>(tiles.size()));
    }
    ntiles_ = static_cast<int64_t>(tiles.size());
    seg_.upload(seg.data(), seg.size());
    first_.upload(first.data(), first.size());
    tiles_.upload(tiles.data(), tiles.size());
    part_.reserve(static_cast<size_t>(ntiles_));
    bad_.reserve(static_cast<size_t>(ntiles_ > 0 ? ntiles_ : 1));
    const int64_t n = seg.back();
    nw_ = compress::bits::code_words(n, width_);
    stride_ = S_ + nw_;
  }
  void encode(const float* x, const BucketLayout& layout, uint64_t key) {
    prepare(layout);
    uint32_t* words = send_.reserve(static_cast<size_t>(stride_));
    tile_reduce<<<static_cast<unsigned>(ntiles_), kBlock>>>(x, tiles_.get(), l2_, part_.get(), bad_.get());
    CUDA_CHECK_LAUNCH();
    segment_scales<<<grid_for(S_), kBlock>>>(part_.get(), bad_.get(), first_.get(), S_, l2_, words);
    CUDA_CHECK_LAUNCH();
    encode_codes<<<grid_for(nw_), kBlock>>>(x, seg_host_.back(), seg_.get(), S_, words,
                                            static_cast<uint32_t>(levels_), width_, key, words + S_, nw_);
    CUDA_CHECK_LAUNCH();
  }
  void decode(const uint32_t* all, int p, float* out) {
    int* flag = flag_.reserve(1);
    check_scales<<<1, kBlock>>>(all, stride_, p, S_, flag);
    CUDA_CHECK_LAUNCH();
    const int64_t n = seg_host_.back();
    decode_codes<<<grid_for(n), kBlock>>>(all, stride_, p, n, seg_.get(), S_,
                                          static_cast<uint32_t>(levels_), width_,
                                          1.0f / static_cast<float>(p), flag, out);
    CUDA_CHECK_LAUNCH();
  }

  bool l2_;
  int64_t levels_ = 127, bucket_ = 0;
  uint64_t seed_ = 0;
  int width_ = 8;
  std::map<int64_t, uint64_t> counter_;
  std::vector<int64_t> seg_host_;
  int64_t S_ = 0, ntiles_ = 0, nw_ = 0, stride_ = 0;
  DeviceArray<int64_t> seg_, first_;
  DeviceArray<Tile> tiles_;
  DeviceArray<double> part_;
  DeviceArray<int> bad_, flag_;
  DeviceArray<uint32_t> send_, recv_;
};

}  // namespace

std::unique_ptr<Compressor> make_qsgd_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<LevelCuda>(std::move(cpu), true);
}
std::unique_ptr<Compressor> make_terngrad_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<LevelCuda>(std::move(cpu), false);
}

}  // namespace gcu::cuda
