// "thc" on the GPU (compressors/thc.h: the algorithm, steps 1-6, is specified there): sign
// flips and partial/full unnormalized Hadamard stages applied in the CPU's order with the
// same float operations (bit-identical rotation), shared range by a one-element Max
// all-reduce on the device, stochastic levels with rng.h's stream packed into the same
// overflow-free U64 lanes, integer all-reduce, dequantize, inverse rotation. Bit-identical
// to the CPU, with saturation too: the RMS is summed in the CPU's order (sumsq.cuh).
// Hadamard stages: the first 11 inside 2048-element tiles in shared memory, the later
// ones (11-15 for the default block of 65536) five at a time in strided shared-memory
// tiles, so a full rotation is two passes over y instead of seven.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"
#include "sumsq.cuh"

#include "compressors/rng.h"
#include "compressors/thc.h"

#include <cmath>
#include <cstdlib>
#include <map>

namespace gcu::cuda {
namespace {

constexpr uint64_t kRotationSalt = ~uint64_t{0};
constexpr int kSmemTile = 2048;  // stages inside 2048-element tiles run in shared memory
constexpr int kStridedCols = 64;            // later stages: tiles of (2^r rows) x 64 columns
constexpr int kStridedStages = 5;           // 2^5 x 64 = 2048 floats of shared memory
constexpr int64_t kStatChunk = compress::sumsq::kChunk;  // one block per chunk of the CPU
constexpr int kWarps = kBlock / 32;

__device__ __forceinline__ uint32_t sign_bit(uint64_t key, int64_t j) {
  const uint32_t klo = static_cast<uint32_t>(key), khi = static_cast<uint32_t>(key >> 32);
  const uint32_t h = compress::rng::hash32(compress::rng::hash32(static_cast<uint32_t>(j) ^ klo) ^ khi ^
                                           static_cast<uint32_t>(static_cast<uint64_t>(j) >> 32));
  return h & 0x80000000u;
}

// y_j = D_j x_j (x_j when there is no rotation: t = 0 means no sign flips), 0 past n.
__global__ void flip_pad(const float* x, int64_t n, int64_t m, uint64_t kr, bool flips, float* y) {
  GCU_GRID_STRIDE(j, m) {
    y[j] = j < n ? __uint_as_float(__float_as_uint(x[j]) ^ (flips ? sign_bit(kr, j) : 0u)) : 0.0f;
  }
}

// Stages [0, t) inside tiles of T = min(L, 2048) elements (T | L): (a, b) -> (a + b, a - b).
__global__ void fwht_smem(float* y, int64_t m, int T, int t) {
  __shared__ float s[kSmemTile];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * T;
  if (base >= m) return;
  for (int i = threadIdx.x; i < T; i += blockDim.x) s[i] = y[base + i];
  __syncthreads();
  for (int st = 0; st < t; ++st) {
    const int h = 1 << st;
    for (int q = threadIdx.x; q < T / 2; q += blockDim.x) {
      const int i = (q / h) * 2 * h + (q % h);
      const float a = s[i], b = s[i + h];
      s[i] = __fadd_rn(a, b);
      s[i + h] = __fsub_rn(a, b);
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < T; i += blockDim.x) y[base + i] = s[i];
}

// Stages [a, a + r) (a >= 11, r <= 5) in shared memory: the pairs of these stages differ
// only in index bits a .. a+r-1, so a tile of 2^r rows (k: bits a..a+r-1) by 64 columns
// (64 consecutive low offsets) holds every pair it needs. Same float operations in the
// same order per element as one global pass per stage (and as the CPU).
__global__ void fwht_smem_strided(float* y, int a, int r) {
  __shared__ float s[kSmemTile];
  const int rows = 1 << r;
  const int64_t row_stride = int64_t{1} << a;
  const int64_t groups = row_stride / kStridedCols;
  const int64_t outer = blockIdx.x / groups, cg = blockIdx.x % groups;
  const int64_t base = outer * (row_stride << r) + cg * kStridedCols;
  for (int q = threadIdx.x; q < rows * kStridedCols; q += blockDim.x)
    s[q] = y[base + (q / kStridedCols) * row_stride + (q % kStridedCols)];
  __syncthreads();
  for (int st = 0; st < r; ++st) {
    const int h = 1 << st;
    for (int q = threadIdx.x; q < (rows / 2) * kStridedCols; q += blockDim.x) {
      const int pr = q / kStridedCols, c = q % kStridedCols;
      const int k = (pr / h) * 2 * h + (pr % h);
      const float u = s[k * kStridedCols + c], v = s[(k + h) * kStridedCols + c];
      s[k * kStridedCols + c] = __fadd_rn(u, v);
      s[(k + h) * kStridedCols + c] = __fsub_rn(u, v);
    }
    __syncthreads();
  }
  for (int q = threadIdx.x; q < rows * kStridedCols; q += blockDim.x)
    y[base + (q / kStridedCols) * row_stride + (q % kStridedCols)] = s[q];
}

// m is a multiple of L and t <= log2(L).
void fwht(float* y, int64_t m, int64_t L, int t) {
  if (t <= 0 || m <= 0) return;
  const int T = static_cast<int>(L < kSmemTile ? L : kSmemTile);
  int ts = 0;
  while ((1 << ts) < T && ts < t) ++ts;  // stages that fit in a tile
  fwht_smem<<<static_cast<unsigned>(m / T), 1024, 0, stream()>>>(y, m, T, ts);
  CUDA_CHECK_LAUNCH();
  for (int st = ts; st < t; st += kStridedStages) {
    const int r = t - st < kStridedStages ? t - st : kStridedStages;
    const int64_t tiles = m / (int64_t{kStridedCols} << r);
    fwht_smem_strided<<<static_cast<unsigned>(tiles), kBlock, 0, stream()>>>(y, st, r);
    CUDA_CHECK_LAUNCH();
  }
}

// One block per chunk of kStatChunk elements: max |y|, NaN/Inf flag, and the chunk's sum
// of squares in the CPU's order (float run partials added in double in order).
__global__ void range_partials(const float* y, int64_t m, float* pmax, double* pss, int* pbad) {
  __shared__ float s_run[kStatChunk / compress::sumsq::kRun];
  __shared__ float s_max[kWarps];
  __shared__ int s_bad[kWarps];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t b0 = static_cast<int64_t>(blockIdx.x) * kStatChunk;
  const int64_t e0 = b0 + kStatChunk < m ? b0 + kStatChunk : m;
  const int runs = static_cast<int>((e0 - b0 + compress::sumsq::kRun - 1) / compress::sumsq::kRun);
  for (int r = warp; r < runs; r += kWarps) {
    const int64_t b = b0 + r * compress::sumsq::kRun;
    const int64_t e = b + compress::sumsq::kRun < e0 ? b + compress::sumsq::kRun : e0;
    const float v = warp_run_sumsq(y, b, e);
    if (lane == 0) s_run[r] = v;
  }
  float mx = 0;
  int bad = 0;
  for (int64_t j = b0 + threadIdx.x; j < e0; j += blockDim.x) {
    const float a = fabsf(y[j]);
    mx = a > mx ? a : mx;
    bad |= !(a <= 3.4028234663852886e38f);
  }
  for (int off = 16; off > 0; off >>= 1) {
    const float o = __shfl_down_sync(0xffffffffu, mx, off);
    mx = o > mx ? o : mx;
    bad |= __shfl_down_sync(0xffffffffu, bad, off);
  }
  if (lane == 0) { s_max[warp] = mx; s_bad[warp] = bad; }
  __syncthreads();
  if (threadIdx.x == 0) {
    double ss = 0;
    for (int r = 0; r < runs; ++r) ss += static_cast<double>(s_run[r]);
    for (int w = 0; w < kWarps; ++w) {
      mx = s_max[w] > mx ? s_max[w] : mx;
      bad |= s_bad[w];
    }
    pmax[blockIdx.x] = mx;
    pss[blockIdx.x] = ss;
    pbad[blockIdx.x] = bad;
  }
}

// Chunk totals added in chunk order (as the CPU), then R = max |y|, capped by sat x RMS.
__global__ void range_final(const float* pmax, const double* pss, const int* pbad, int64_t blocks, int64_t m,
                            double sat, float* R) {
  float mx = 0;
  double s = 0;
  int b = 0;
  for (int64_t i = 0; i < blocks; ++i) {
    mx = pmax[i] > mx ? pmax[i] : mx;
    s += pss[i];
    b |= pbad[i];
  }
  if (b || !isfinite(s)) { *R = __int_as_float(0x7f800000); return; }
  if (sat > 0) {
    const float cap = static_cast<float>(sat * sqrt(s / static_cast<double>(m)));
    mx = cap < mx ? cap : mx;
  }
  *R = mx;
}

// Word i holds lanes l < k: q_{ik+l} << (l w); q = min(G, floor((clamp(y) + R) inv + u)).
__global__ void quantize_pack(const float* y, int64_t m, const float* Rp, uint32_t G, uint64_t kq, int w, int k,
                              uint64_t* words, int64_t nw) {
  const float R = *Rp;
  const bool finite = isfinite(R);
  const float inv = R > 0 ? __fdiv_rn(static_cast<float>(G), __fmul_rn(2.0f, R)) : 0.0f;
  const uint32_t klo = static_cast<uint32_t>(kq), khi = static_cast<uint32_t>(kq >> 32);
  GCU_GRID_STRIDE(i, nw) {
    uint64_t acc = 0;
    if (finite) {
      for (int l = 0; l < k; ++l) {
        const int64_t j = i * k + l;
        if (j >= m) break;
        const uint32_t h = compress::rng::hash32(compress::rng::hash32(static_cast<uint32_t>(j) ^ klo) ^ khi ^
                                                 static_cast<uint32_t>(static_cast<uint64_t>(j) >> 32));
        const float yj = y[j];
        const float lo = yj < -R ? -R : yj;     // std::max(y, -R)
        const float yc = R < lo ? R : lo;       // std::min(., R)
        uint32_t lv;
        if (isinf(inv)) {  // tiny R: G / (2R) overflows float; the CPU's levels_tiny() in double
          const double t = fmin((static_cast<double>(yc) + static_cast<double>(R)) *
                                        (static_cast<double>(G) / (2.0 * static_cast<double>(R))) +
                                    static_cast<double>(h >> 8) * 0x1p-24,
                                static_cast<double>(G));
          lv = static_cast<uint32_t>(t);
        } else {
          const float t = __fadd_rn(__fmul_rn(__fadd_rn(yc, R), inv), static_cast<float>(h >> 8) * 0x1p-24f);
          lv = static_cast<uint32_t>(static_cast<int32_t>(t));
        }
        acc |= static_cast<uint64_t>(lv < G ? lv : G) << (l * w);
      }
    }
    words[i] = acc;
  }
}

// z_j = -R + (S_j / p) * step, step = 2R / G.
__global__ void unpack_lanes(const uint64_t* words, int64_t m, int w, int k, const float* Rp, float p,
                             uint32_t G, float* z) {
  const float R = *Rp;
  const float step = __fdiv_rn(__fmul_rn(2.0f, R), static_cast<float>(G));
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  GCU_GRID_STRIDE(j, m) {
    const uint64_t s = (words[j / k] >> ((j % k) * w)) & mask;
    z[j] = __fadd_rn(-R, __fmul_rn(__fdiv_rn(static_cast<float>(s), p), step));
  }
}

// out_j = 2^-t D_j z_j (z_j when t = 0), j < n; all NaN when R is not finite.
__global__ void unflip(const float* z, int64_t n, float scale, uint64_t kr, bool flips, const float* Rp,
                       float* out) {
  const bool finite = isfinite(*Rp);
  GCU_GRID_STRIDE(j, n) {
    out[j] = finite ? __uint_as_float(__float_as_uint(__fmul_rn(z[j], scale)) ^ (flips ? sign_bit(kr, j) : 0u))
                    : __int_as_float(0x7fc00000);
  }
}

class ThcCuda final : public CudaScheme {
 public:
  explicit ThcCuda(std::unique_ptr<Compressor> cpu) : CudaScheme(std::move(cpu)) {
    const SchemeArgs a = params();
    prm_.bits = static_cast<int>(a.get_int("bits", 4));
    prm_.sat = a.get_double("sat", 0.0);
    const std::string rot = a.get_string("rot", "full");
    prm_.rot = rot == "full" ? -1 : static_cast<int>(std::strtol(rot.c_str(), nullptr, 10));
    prm_.block = a.get_int("block", 65536);
    prm_.seed = static_cast<uint64_t>(a.get_int("seed", 0));
  }
  void run_step(GradBucket b, Communicator& comm, float* local) override { run(b, &comm, local, b.data); }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    run({bucket_index, const_cast<float*>(in), &layout}, nullptr, nullptr, out);
  }

 private:
  void run(GradBucket b, Communicator* comm, float* local, float* out) {
    const int64_t n = b.numel();
    if (n == 0) return;
    const int p = comm ? comm->world_size() : 1;
    const compress::ThcGeometry g = compress::ThcGeometry::of(prm_, n, p);
    const uint64_t step = counter_[b.index]++;
    const uint64_t kr = compress::rng::stream_key(prm_.seed, static_cast<uint64_t>(b.index), step, kRotationSalt);
    const uint64_t kq = compress::rng::stream_key(prm_.seed, static_cast<uint64_t>(b.index), step,
                                                  static_cast<uint64_t>(comm ? comm->rank() : 0));
    const uint32_t G = (1u << prm_.bits) - 1;
    float* y = y_.reserve(static_cast<size_t>(g.m));
    float* R = R_.reserve(1);
    uint64_t* words = words_.reserve(static_cast<size_t>(g.words));
    // 1-3: rotate and range.
    flip_pad<<<grid_for(g.m), kBlock, 0, stream()>>>(b.data, n, g.m, kr, g.stages > 0, y);
    CUDA_CHECK_LAUNCH();
    fwht(y, g.m, g.L, g.stages);
    const int64_t chunks = (g.m + kStatChunk - 1) / kStatChunk;
    range_partials<<<static_cast<unsigned>(chunks), kBlock, 0, stream()>>>(
        y, g.m, pmax_.reserve(static_cast<size_t>(chunks)), pss_.reserve(static_cast<size_t>(chunks)),
        pbad_.reserve(static_cast<size_t>(chunks)));
    CUDA_CHECK_LAUNCH();
    range_final<<<1, 1, 0, stream()>>>(pmax_.get(), pss_.get(), pbad_.get(), chunks, g.m, prm_.sat, R);
    CUDA_CHECK_LAUNCH();
    if (comm) comm->all_reduce(R, 1, compress::WireType::F32, compress::ReduceOp::Max);
    // 4-5: levels in lanes.
    quantize_pack<<<grid_for(g.words), kBlock, 0, stream()>>>(y, g.m, R, G, kq, g.lane_bits, g.lanes_per_word, words, g.words);
    CUDA_CHECK_LAUNCH();
    if (local) decode(words, 1, g, G, kr, n, local);
    if (comm) comm->all_reduce(words, g.words, compress::WireType::U64, compress::ReduceOp::Sum);
    decode(words, p, g, G, kr, n, out);
  }
  // 6: dequantize, inverse rotation (y_ is free again after quantization).
  void decode(const uint64_t* words, int p, const compress::ThcGeometry& g, uint32_t G, uint64_t kr, int64_t n,
              float* out) {
    float* z = y_.get();
    unpack_lanes<<<grid_for(g.m), kBlock, 0, stream()>>>(words, g.m, g.lane_bits, g.lanes_per_word, R_.get(),
                                            static_cast<float>(p), G, z);
    CUDA_CHECK_LAUNCH();
    fwht(z, g.m, g.L, g.stages);
    unflip<<<grid_for(n), kBlock, 0, stream()>>>(z, n, std::ldexp(1.0f, -g.stages), kr, g.stages > 0, R_.get(), out);
    CUDA_CHECK_LAUNCH();
  }
  compress::ThcParams prm_;
  std::map<int64_t, uint64_t> counter_;
  DeviceArray<float> y_, R_, pmax_;
  DeviceArray<double> pss_;
  DeviceArray<int> pbad_;
  DeviceArray<uint64_t> words_;
};

}  // namespace

std::unique_ptr<Compressor> make_thc_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<ThcCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
