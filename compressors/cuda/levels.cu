// The level codec shared by qsgd.cu and terngrad.cu (levels.cuh; wire format in
// compressors/bitpack.h): per-segment scale (L2 norm or max |x|), stochastic levels with
// the counter-based stream of compressors/rng.h (same key, same uniforms as the CPU),
// sign+level codes packed into U32 words, one all-gather, rank-ordered decode. Codes and
// scales are bit-identical to the CPU's: max is order-free and the L2 norm follows the
// CPU's summation order (sumsq.cuh). Segment tables are uploaded once per layout (a
// cache keyed by the segments), so alternating buckets of different layouts cost no
// host-to-device copy after their first step.
#include "levels.cuh"

#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "sumsq.cuh"

#include "compressors/bitpack.h"
#include "compressors/rng.h"

#include <map>
#include <memory>
#include <vector>

namespace gcu::cuda {
namespace {

// Tiles = the CPU's chunks (sumsq::kChunk elements from each segment start, never
// crossing a segment): one block per tile.
constexpr int64_t kTile = compress::sumsq::kChunk;
constexpr int kWarps = kBlock / 32;
constexpr int kRunsPerTile = static_cast<int>(kTile / compress::sumsq::kRun);

struct Tile {
  int64_t begin, end;
};

// Per tile: sum of squares in the CPU's order (l2: float run partials, added in double in
// order) or max |x| with the count of NaN/Inf (!l2).
__global__ void tile_reduce(const float* x, const Tile* tiles, bool l2, double* part, int* bad) {
  __shared__ float s_run[kRunsPerTile];
  __shared__ float s_max[kWarps];
  __shared__ int s_bad[kWarps];
  const Tile t = tiles[blockIdx.x];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int runs = static_cast<int>((t.end - t.begin + compress::sumsq::kRun - 1) / compress::sumsq::kRun);
  float mx = 0.0f;
  int nb = 0;
  if (l2) {
    for (int r = warp; r < runs; r += kWarps) {
      const int64_t b = t.begin + r * compress::sumsq::kRun;
      const int64_t e = b + compress::sumsq::kRun < t.end ? b + compress::sumsq::kRun : t.end;
      const float v = warp_run_sumsq(x, b, e);
      if (lane == 0) s_run[r] = v;
    }
  } else {
    for (int64_t i = t.begin + threadIdx.x; i < t.end; i += blockDim.x) {
      const float a = fabsf(x[i]);
      mx = a > mx ? a : mx;
      nb += !(a <= 3.4028234663852886e38f);
    }
    for (int off = 16; off > 0; off >>= 1) {
      const float o = __shfl_down_sync(0xffffffffu, mx, off);
      mx = o > mx ? o : mx;
      nb += __shfl_down_sync(0xffffffffu, nb, off);
    }
    if (lane == 0) { s_max[warp] = mx; s_bad[warp] = nb; }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double acc = 0;
    int total_bad = 0;
    if (l2) {
      for (int r = 0; r < runs; ++r) acc += static_cast<double>(s_run[r]);
    } else {
      for (int w = 0; w < kWarps; ++w) {
        acc = s_max[w] > acc ? s_max[w] : acc;
        total_bad += s_bad[w];
      }
    }
    part[blockIdx.x] = acc;
    bad[blockIdx.x] = total_bad;
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

// Segment of element i: i / bucket for fixed-size segments (bucket > 0), else the last k
// with seg[k] <= i (seg has S+1 entries, seg[S] = n; per-tensor segments).
__device__ __forceinline__ int64_t segment_of(const int64_t* seg, int64_t S, int64_t bucket, int64_t i) {
  if (bucket > 0) return i / bucket;
  int64_t lo = 0, hi = S - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) >> 1;
    if (seg[mid] <= i) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// One thread per output word of 32/width codes (unused codes of the last word are 0).
__global__ void encode_codes(const float* x, int64_t n, const int64_t* seg, int64_t S, int64_t bucket,
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
      const float sc = __uint_as_float(scale_words[segment_of(seg, S, bucket, i)]);
      if (!isfinite(sc)) continue;  // non-finite input: code 0 (decode gives NaN)
      const float inv = sc > 0.0f ? __fdiv_rn(static_cast<float>(s), sc) : 0.0f;
      const uint32_t u = __float_as_uint(x[i]);
      const float a = __uint_as_float(u & 0x7fffffffu);
      const uint32_t h = compress::rng::hash32(compress::rng::hash32(static_cast<uint32_t>(i) ^ klo) ^ khi ^
                                               static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32));
      uint32_t lvl;
      if (isinf(inv)) {  // subnormal scale: s / scale overflows float; the CPU's levels_tiny() in double
        const double vd = fmin(static_cast<double>(a) * (static_cast<double>(s) / static_cast<double>(sc)) +
                                   static_cast<double>(h >> 8) * 0x1p-24,
                               static_cast<double>(s));
        lvl = static_cast<uint32_t>(vd);
      } else {
        const float v = __fadd_rn(__fmul_rn(a, inv), static_cast<float>(h >> 8) * 0x1p-24f);
        lvl = static_cast<uint32_t>(static_cast<int32_t>(v));
        lvl = lvl < s ? lvl : s;
      }
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
                             int64_t S, int64_t bucket, uint32_t s, int width, float factor, const int* bad, float* out) {
  const int per = 32 / width;
  const uint32_t shift = static_cast<uint32_t>(width - 1), mask = (1u << shift) - 1u;
  const uint32_t wmask = width == 32 ? 0xffffffffu : (1u << width) - 1u;
  const bool nan = *bad != 0;
  GCU_GRID_STRIDE(i, n) {
    if (nan) { out[i] = __int_as_float(0x7fc00000); continue; }
    const int64_t k = segment_of(seg, S, bucket, i);
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
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    encode(b.data, *b.layout, next_key(b.index, comm.rank()));
    if (local) decode(send_.get(), 1, local);
    const int p = comm.world_size();
    const int64_t stride = cur_->stride;
    uint32_t* all = recv_.reserve(static_cast<size_t>(stride) * p);
    comm.all_gather(send_.get(), all, stride, compress::WireType::U32);
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
  // Device tables of one layout: segment starts, tiles, first tile of each segment.
  struct Plan {
    std::vector<int64_t> seg_host;
    int64_t S = 0, ntiles = 0, nw = 0, stride = 0, n = 0;
    DeviceArray<int64_t> seg, first;
    DeviceArray<Tile> tiles;
  };
  // The plan of this layout: built and uploaded on its first use, then cached (one per
  // distinct segmentation: a model's few bucket layouts).
  const Plan& prepare(const BucketLayout& layout) {
    std::vector<int64_t> seg = compress::bits::segments_for(layout, bucket_);
    if (cur_ && cur_->seg_host == seg) return *cur_;
    auto& slot = plans_[seg];
    if (!slot) {
      slot = std::make_unique<Plan>();
      Plan& pl = *slot;
      pl.seg_host = seg;
      pl.S = static_cast<int64_t>(seg.size()) - 1;
      std::vector<Tile> tiles;
      std::vector<int64_t> first{0};
      for (int64_t k = 0; k < pl.S; ++k) {
        for (int64_t t = seg[k]; t < seg[k + 1]; t += kTile)
          tiles.push_back({t, t + kTile < seg[k + 1] ? t + kTile : seg[k + 1]});
        first.push_back(static_cast<int64_t>(tiles.size()));
      }
      pl.ntiles = static_cast<int64_t>(tiles.size());
      pl.seg.upload(seg.data(), seg.size());
      pl.first.upload(first.data(), first.size());
      pl.tiles.upload(tiles.data(), tiles.size());
      pl.n = seg.back();
      pl.nw = compress::bits::code_words(pl.n, width_);
      pl.stride = pl.S + pl.nw;
    }
    cur_ = slot.get();
    return *cur_;
  }
  void encode(const float* x, const BucketLayout& layout, uint64_t key) {
    const Plan& pl = prepare(layout);
    uint32_t* words = send_.reserve(static_cast<size_t>(pl.stride));
    double* part = part_.reserve(static_cast<size_t>(pl.ntiles > 0 ? pl.ntiles : 1));
    int* bad = bad_.reserve(static_cast<size_t>(pl.ntiles > 0 ? pl.ntiles : 1));
    tile_reduce<<<static_cast<unsigned>(pl.ntiles), kBlock, 0, stream()>>>(x, pl.tiles.get(), l2_, part, bad);
    CUDA_CHECK_LAUNCH();
    segment_scales<<<grid_for(pl.S), kBlock, 0, stream()>>>(part, bad, pl.first.get(), pl.S, l2_, words);
    CUDA_CHECK_LAUNCH();
    encode_codes<<<grid_for(pl.nw), kBlock, 0, stream()>>>(x, pl.n, pl.seg.get(), pl.S, bucket_, words,
                                                           static_cast<uint32_t>(levels_), width_, key,
                                                           words + pl.S, pl.nw);
    CUDA_CHECK_LAUNCH();
  }
  // Decode with the layout of the last encode() (cur_).
  void decode(const uint32_t* all, int p, float* out) {
    const Plan& pl = *cur_;
    int* flag = flag_.reserve(1);
    check_scales<<<1, kBlock, 0, stream()>>>(all, pl.stride, p, pl.S, flag);
    CUDA_CHECK_LAUNCH();
    decode_codes<<<grid_for(pl.n), kBlock, 0, stream()>>>(all, pl.stride, p, pl.n, pl.seg.get(), pl.S, bucket_,
                                                          static_cast<uint32_t>(levels_), width_,
                                                          1.0f / static_cast<float>(p), flag, out);
    CUDA_CHECK_LAUNCH();
  }

  bool l2_;
  int64_t levels_ = 127, bucket_ = 0;
  uint64_t seed_ = 0;
  int width_ = 8;
  std::map<int64_t, uint64_t> counter_;
  std::map<std::vector<int64_t>, std::unique_ptr<Plan>> plans_;
  const Plan* cur_ = nullptr;
  DeviceArray<double> part_;
  DeviceArray<int> bad_, flag_;
  DeviceArray<uint32_t> send_, recv_;
};

}  // namespace

std::unique_ptr<Compressor> make_level_cuda(std::unique_ptr<Compressor> cpu, bool l2) {
  return std::make_unique<LevelCuda>(std::move(cpu), l2);
}

}  // namespace gcu::cuda
