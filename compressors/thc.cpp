// "thc" on the CPU (thc.h): sign flips + partial/full Hadamard, shared range, stochastic
// integer grid packed in overflow-free lanes, integer all-reduce, inverse rotation.
#include "thc.h"

#include "bitpack.h"
#include "hadamard.h"
#include "half.h"
#include "rng.h"
#include "sumsq.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gcu::compress {
namespace {

constexpr uint64_t kRotationSalt = ~uint64_t{0};
constexpr int64_t kThcParallelMin = 1 << 16;
constexpr int64_t kChunk = sumsq::kChunk;  // 2^15 (sumsq.h); chunks never cross a multiple of 2^32: 32-bit lanes inside
constexpr int64_t kTile = 4096;      // lanes per quantize tile (multiple of 64)

// Runs fn(b, e) over [0, m) in chunks, in parallel for large m.
template <class Fn>
void for_chunks(int64_t m, Fn fn) {
  const int64_t nc = (m + kChunk - 1) / kChunk;
#pragma omp parallel for if (m > kThcParallelMin) schedule(static)
  for (int64_t c = 0; c < nc; ++c) fn(c * kChunk, std::min(m, (c + 1) * kChunk));
}

inline uint32_t hi_key(uint64_t key, int64_t b) {
  return static_cast<uint32_t>(key >> 32) ^ static_cast<uint32_t>(static_cast<uint64_t>(b) >> 32);
}

// y[j] = D_j x[j] on [b, e).
GCU_CLONES_WIDE void flip(const float* x, int64_t b, int64_t e, uint64_t kr, float* y) {
  const uint32_t klo = static_cast<uint32_t>(kr), khi = hi_key(kr, b);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    y[b + j] = bits_float(float_bits(x[b + j]) ^ (h & 0x80000000u));
  }
}

// qb[j - b] = min(G, floor((clamp(y_j, -R, R) + R) * inv + u_j)) on [b, e); yb points at
// y_b ([b, e) never crosses a multiple of 2^32).
GCU_CLONES_WIDE void levels(const float* yb, int64_t b, int64_t e, float R, float inv, uint32_t G,
                       uint64_t kq, uint16_t* qb) {
  const uint32_t klo = static_cast<uint32_t>(kq), khi = hi_key(kq, b);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    const float yc = std::min(std::max(yb[j], -R), R);
    const float t = (yc + R) * inv + static_cast<float>(h >> 8) * 0x1p-24f;
    const uint32_t l = static_cast<uint32_t>(static_cast<int32_t>(t));
    qb[j] = static_cast<uint16_t>(l < G ? l : G);
  }
}

// levels() for a range R so small (subnormal) that G / (2R) overflows float ((y + R) * inf
// would be Inf or NaN, converted to int: UB): the same formula in double.
void thc_levels_tiny(const float* yb, int64_t b, int64_t e, float R, uint32_t G, uint64_t kq, uint16_t* qb) {
  const uint32_t klo = static_cast<uint32_t>(kq), khi = hi_key(kq, b);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  const double inv = static_cast<double>(G) / (2.0 * static_cast<double>(R));
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    const double yc = std::min(std::max(yb[j], -R), R);
    const double t = std::min((yc + R) * inv + static_cast<double>(h >> 8) * 0x1p-24, static_cast<double>(G));
    qb[j] = static_cast<uint16_t>(t);
  }
}

// max |y| and sum y^2 on [b, e), e - b <= sumsq::kChunk (the order of sumsq.h).
GCU_CLONES_WIDE void range_stats(const float* y, int64_t b, int64_t e, float* mx, double* ss) {
  float m = 0;
#pragma omp simd reduction(max : m)
  for (int64_t j = b; j < e; ++j) m = std::max(m, std::fabs(y[j]));
  *mx = m;
  *ss = sumsq::chunk_total(y, b, e);
}

// words[i] for i in [0, nw) from the lanes q[i k, i k + k) (q holds nq <= nw k values;
// missing lanes of the last word are 0).
template <int W>
inline __attribute__((always_inline)) void pack_fixed(const uint16_t* q, int64_t nw, uint64_t* words) {
  constexpr int k = 64 / W;
  for (int64_t i = 0; i < nw; ++i) {
    uint64_t acc = 0;
    for (int l = 0; l < k; ++l) acc |= static_cast<uint64_t>(q[i * k + l]) << (l * W);
    words[i] = acc;
  }
}
// GCC makes no target clones of templates: non-template wrappers carry them.
GCU_CLONES_WIDE void pack4(const uint16_t* q, int64_t nw, uint64_t* w) { pack_fixed<4>(q, nw, w); }
GCU_CLONES_WIDE void pack8(const uint16_t* q, int64_t nw, uint64_t* w) { pack_fixed<8>(q, nw, w); }
GCU_CLONES_WIDE void pack16(const uint16_t* q, int64_t nw, uint64_t* w) { pack_fixed<16>(q, nw, w); }

#if defined(__x86_64__)
// pack_fixed<4> with AVX2, two words (32 lanes of at most 4 bits) per iteration.
__attribute__((target("avx2"))) int64_t pack4_avx2(const uint16_t* q, int64_t nw, uint64_t* words) {
  const __m256i lo4 = _mm256_set1_epi16(0x000f), hi4 = _mm256_set1_epi16(0x00f0);
  int64_t i = 0;
  for (; i + 2 <= nw; i += 2) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 16 * i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 16 * i + 16));
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);  // lanes 0..31
    // u16 j = lane 2j | lane 2j+1 << 8  ->  lane 2j | lane 2j+1 << 4
    const __m256i nib = _mm256_or_si256(_mm256_and_si256(bytes, lo4), _mm256_and_si256(_mm256_srli_epi16(bytes, 4), hi4));
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(nib, nib), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(words + i), _mm256_castsi256_si128(packed));
  }
  return i;
}
#endif

void pack_tile(const uint16_t* q, int64_t nq, int w, int k, uint64_t* words) {
  const int64_t full = nq / k;
#if defined(__x86_64__)
  if (w == 4 && __builtin_cpu_supports("avx2")) {
    const int64_t done = pack4_avx2(q, full, words);
    pack4(q + done * k, full - done, words + done);
  } else
#endif
  if (w == 4) pack4(q, full, words);
  else if (w == 8) pack8(q, full, words);
  else if (w == 16) pack16(q, full, words);
  else
    for (int64_t i = 0; i < full; ++i) {
      uint64_t acc = 0;
      for (int l = 0; l < k; ++l) acc |= static_cast<uint64_t>(q[i * k + l]) << (l * w);
      words[i] = acc;
    }
  if (full * k < nq) {  // last, partial word
    uint64_t acc = 0;
    for (int64_t j = full * k; j < nq; ++j) acc |= static_cast<uint64_t>(q[j]) << ((j - full * k) * w);
    words[full] = acc;
  }
}

template <int W>
inline __attribute__((always_inline)) void unpack_fixed(const uint64_t* words, int64_t wb, int64_t we, float R,
                                                        float p, float step, float* z) {
  constexpr int k = 64 / W;
  constexpr uint64_t mask = (uint64_t{1} << W) - 1;
  for (int64_t i = wb; i < we; ++i) {
    const uint64_t word = words[i];
    for (int l = 0; l < k; ++l)
      z[i * k + l] = -R + static_cast<float>(static_cast<uint32_t>((word >> (l * W)) & mask)) / p * step;
  }
}
GCU_CLONES_WIDE void unpack4(const uint64_t* w, int64_t wb, int64_t we, float R, float p, float s, float* z) {
  unpack_fixed<4>(w, wb, we, R, p, s, z);
}
GCU_CLONES_WIDE void unpack8(const uint64_t* w, int64_t wb, int64_t we, float R, float p, float s, float* z) {
  unpack_fixed<8>(w, wb, we, R, p, s, z);
}
GCU_CLONES_WIDE void unpack16(const uint64_t* w, int64_t wb, int64_t we, float R, float p, float s, float* z) {
  unpack_fixed<16>(w, wb, we, R, p, s, z);
}

#if defined(__x86_64__)
// unpack_fixed() with non-temporal stores for words [wb, we) (lane widths 4, 8, 16; z 16-byte
// aligned): the same float operations in the same order, -R + (float(S) / p) * step.
__attribute__((target("avx2"))) void unpack_stream_avx2(const uint64_t* words, int64_t wb, int64_t we, int W,
                                                        float R, float p, float step, float* z) {
  const int k = 64 / W;
  const int64_t eb = wb * k, ee = we * k, e8 = eb + (ee - eb) / 8 * 8;
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(words);
  const __m256 nr = _mm256_set1_ps(-R), vp = _mm256_set1_ps(p), vs = _mm256_set1_ps(step);
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), m4 = _mm256_set1_epi32(0xf);
  for (int64_t i = eb; i < e8; i += 8) {
    __m256i S;
    if (W == 8) {
      S = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + i)));
    } else if (W == 16) {
      S = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 2 * i)));
    } else {
      uint32_t half;
      std::memcpy(&half, bytes + i / 2, 4);
      S = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(half)), shifts), m4);
    }
    const __m256 v = _mm256_add_ps(nr, _mm256_mul_ps(_mm256_div_ps(_mm256_cvtepi32_ps(S), vp), vs));
    _mm_stream_ps(z + i, _mm256_castps256_ps128(v));
    _mm_stream_ps(z + i + 4, _mm256_extractf128_ps(v, 1));
  }
  for (int64_t i = e8; i < ee; ++i) {
    const uint64_t mask = (uint64_t{1} << W) - 1;
    z[i] = -R + static_cast<float>(static_cast<uint32_t>((words[i / k] >> ((i % k) * W)) & mask)) / p * step;
  }
  _mm_sfence();
}
#endif

// z[j] = -R + (S_j / p) * step for the first m lanes of `words`; may_stream: z is the final
// output (non-temporal stores when it is large).
void unpack_lanes(const uint64_t* words, int64_t m, int w, int k, float R, float p, float step, float* z,
                  bool may_stream) {
  const uint64_t mask = (w >= 64) ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  const int64_t nw = (m + k - 1) / k;
  if (w == 4 || w == 8 || w == 16) {
    const int64_t full = m / k;
    constexpr int64_t kWords = 4096;
#if defined(__x86_64__)
    const bool stream = may_stream && m >= bits::kStreamMin && (reinterpret_cast<uintptr_t>(z) & 15u) == 0 &&
                        __builtin_cpu_supports("avx2");
#else
    const bool stream = false;
#endif
#pragma omp parallel for if (m > kThcParallelMin) schedule(static)
    for (int64_t wb = 0; wb < full; wb += kWords) {
      const int64_t we = std::min(full, wb + kWords);
#if defined(__x86_64__)
      if (stream) unpack_stream_avx2(words, wb, we, w, R, p, step, z);
      else
#endif
      if (w == 4) unpack4(words, wb, we, R, p, step, z);
      else if (w == 8) unpack8(words, wb, we, R, p, step, z);
      else unpack16(words, wb, we, R, p, step, z);
    }
    for (int64_t j = full * k; j < m; ++j)
      z[j] = -R + static_cast<float>(static_cast<uint32_t>((words[full] >> ((j - full * k) * w)) & mask)) / p * step;
    return;
  }
#pragma omp parallel for if (m > kThcParallelMin) schedule(static)
  for (int64_t i = 0; i < nw; ++i) {
    const int64_t b = i * k;
    const int cnt = static_cast<int>(std::min<int64_t>(k, m - b));
    const uint64_t word = words[i];
    for (int l = 0; l < cnt; ++l)
      z[b + l] = -R + (static_cast<float>((word >> (l * w)) & mask) / p) * step;
  }
}

// out[j] = 2^-t D_j z[j] on [b, e) (no sign flips when t = 0).
GCU_CLONES_WIDE void unflip(const float* z, int64_t b, int64_t e, float scale, bool flips, uint64_t kr,
                       float* out) {
  if (!flips) {
    for (int64_t j = b; j < e; ++j) out[j] = z[j] * scale;
    return;
  }
  const uint32_t klo = static_cast<uint32_t>(kr), khi = hi_key(kr, b);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    out[b + j] = bits_float(float_bits(z[b + j] * scale) ^ (h & 0x80000000u));
  }
}

}  // namespace

ThcGeometry ThcGeometry::of(const ThcParams& prm, int64_t n, int world) {
  ThcGeometry g;
  if (n <= 0) return g;
  g.L = n <= prm.block ? static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(n))) : prm.block;
  g.m = (n + g.L - 1) / g.L * g.L;
  const int full = std::countr_zero(static_cast<uint64_t>(g.L));
  g.stages = prm.rot < 0 ? full : std::min(prm.rot, full);
  const uint64_t max_sum = static_cast<uint64_t>(world) * ((uint64_t{1} << prm.bits) - 1);
  g.lane_bits = static_cast<int>(std::bit_width(max_sum));
  g.lanes_per_word = 64 / g.lane_bits;
  g.words = (g.m + g.lanes_per_word - 1) / g.lanes_per_word;
  return g;
}

ThcCompressor::ThcCompressor(ThcParams p) : prm_(p) {
  if (p.bits < 1 || p.bits > 16)
    throw CompressorError("thc: bits=" + std::to_string(p.bits) + " is out of range [1, 16]");
  if (!(p.sat >= 0) || !std::isfinite(p.sat))
    throw CompressorError("thc: sat=" + std::to_string(p.sat) + " must be >= 0 (0 = no saturation)");
  if (p.block < 2 || p.block > (int64_t{1} << 30) || !std::has_single_bit(static_cast<uint64_t>(p.block)))
    throw CompressorError("thc: block=" + std::to_string(p.block) + " must be a power of two in [2, 2^30]");
  if (p.rot < -1) throw CompressorError("thc: rot=" + std::to_string(p.rot) + " must be 'full' or >= 0");
}

std::string ThcCompressor::spec() const {
  std::string s = "thc:bits=" + std::to_string(prm_.bits);
  if (prm_.sat > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", prm_.sat);
    s += std::string(",sat=") + buf;
  }
  s += ",rot=" + (prm_.rot < 0 ? std::string("full") : std::to_string(prm_.rot));
  if (prm_.block != 65536) s += ",block=" + std::to_string(prm_.block);
  if (prm_.seed != 0) s += ",seed=" + std::to_string(prm_.seed);
  return s;
}

std::vector<CollectiveCall> ThcCompressor::plan(const BucketLayout& layout, int world) const {
  const int64_t n = layout.numel();
  if (n == 0) return {};
  const ThcGeometry g = ThcGeometry::of(prm_, n, world);
  return {{CollectiveKind::AllReduce, WireType::F32, 1, "range (max)"},
          {CollectiveKind::AllReduce, WireType::U64, g.words, "summed levels"}};
}

float ThcCompressor::rotate(const float* x, int64_t n, const ThcGeometry& g, uint64_t kr) {
  int64_t len = g.m;  // elements whose range is taken (the padding is zeros either way)
  if (g.stages > 0) {
    y_.resize(static_cast<size_t>(g.m));
    float* y = y_.data();
    for_chunks(n, [&](int64_t b, int64_t e) { flip(x, b, e, kr, y); });
    std::fill(y + n, y + g.m, 0.0f);
    fwht_blocks(y, g.m, g.L, g.stages);
    src_ = y;
  } else {  // no rotation: no sign flips and no copy; quantize() reads x itself
    src_ = x;
    len = n;
  }
  const float* y = src_;
  const int64_t nc = (len + kChunk - 1) / kChunk;
  float mx = 0;
  chunk_ss_.resize(static_cast<size_t>(nc));
  double* cs = chunk_ss_.data();
#pragma omp parallel for reduction(max : mx) if (len > kThcParallelMin) schedule(static)
  for (int64_t c = 0; c < nc; ++c) {
    float cm;
    range_stats(y, c * kChunk, std::min(len, (c + 1) * kChunk), &cm, &cs[c]);
    mx = std::max(mx, cm);
  }
  double ss = 0;  // chunk totals in chunk order (sumsq.h; the CUDA version repeats it)
  for (int64_t c = 0; c < nc; ++c) ss += cs[c];
  // NaN/Inf in y: the double sum is not finite (max ignores NaN).
  if (!std::isfinite(ss) || !(mx <= std::numeric_limits<float>::max()))
    return std::numeric_limits<float>::infinity();
  if (prm_.sat > 0)
    mx = std::min(mx, static_cast<float>(prm_.sat * std::sqrt(ss / static_cast<double>(g.m))));
  return mx;
}

void ThcCompressor::quantize(float R, const ThcGeometry& g, int64_t n, uint64_t kq, uint64_t* words) const {
  const uint32_t G = (1u << prm_.bits) - 1;
  if (!std::isfinite(R)) {
    std::fill(words, words + g.words, uint64_t{0});
    return;
  }
  const float inv = R > 0 ? static_cast<float>(G) / (2.0f * R) : 0.0f;
  const float* y = src_;
  const int64_t real = g.stages > 0 ? g.m : n;  // src_ holds this many elements; zeros after
  // Tiles of whole words: levels into a small buffer, packed at once (no m-sized scratch).
  const int k = g.lanes_per_word;
  const int64_t tile_words = std::max<int64_t>(1, kTile / k), tiles = (g.words + tile_words - 1) / tile_words;
  static const std::vector<float> zeros(static_cast<size_t>(kTile) + 64, 0.0f);
#pragma omp parallel for if (g.m > kThcParallelMin) schedule(static)
  for (int64_t t = 0; t < tiles; ++t) {
    alignas(64) uint16_t q[kTile + 64];
    const int64_t wb = t * tile_words, we = std::min(g.words, wb + tile_words);
    const int64_t eb = wb * k, ee = std::min(g.m, we * k);
    for (int64_t b = eb, e; b < ee; b = e) {  // pieces that stay inside one 2^15 chunk
      e = std::min(ee, (b / kChunk + 1) * kChunk);
      if (b < real) e = std::min(e, real);
      const float* yb = b < real ? y + b : zeros.data();
      if (std::isinf(inv)) thc_levels_tiny(yb, b, e, R, G, kq, q + (b - eb));
      else levels(yb, b, e, R, inv, G, kq, q + (b - eb));
    }
    pack_tile(q, ee - eb, g.lane_bits, k, words + wb);
  }
}

void ThcCompressor::decode(const uint64_t* words, float R, int p, const ThcGeometry& g,
                           uint64_t kr, int64_t n, float* out) {
  if (!std::isfinite(R)) {
    std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  const uint32_t G = (1u << prm_.bits) - 1;
  if (g.stages == 0) {  // no rotation to undo: straight into out
    unpack_lanes(words, n, g.lane_bits, g.lanes_per_word, R, static_cast<float>(p),
                 2.0f * R / static_cast<float>(G), out, true);
    return;
  }
  y_.resize(static_cast<size_t>(g.m));
  unpack_lanes(words, g.m, g.lane_bits, g.lanes_per_word, R, static_cast<float>(p),
               2.0f * R / static_cast<float>(G), y_.data(), false);
  fwht_blocks(y_.data(), g.m, g.L, g.stages);
  const float* z = y_.data();
  const float scale = std::ldexp(1.0f, -g.stages);
  for_chunks(n, [&](int64_t b, int64_t e) { unflip(z, b, e, scale, g.stages > 0, kr, out); });
}

void ThcCompressor::run(GradBucket b, Communicator* comm, float* local, float* out) {
  const int64_t n = b.numel();
  if (n == 0) return;
  const int p = comm ? comm->world_size() : 1;
  const ThcGeometry g = ThcGeometry::of(prm_, n, p);
  const uint64_t step = counter_[b.index]++;
  const uint64_t kr = rng::stream_key(prm_.seed, static_cast<uint64_t>(b.index), step, kRotationSalt);
  const uint64_t kq = rng::stream_key(prm_.seed, static_cast<uint64_t>(b.index), step,
                                      static_cast<uint64_t>(comm ? comm->rank() : 0));
  float R = rotate(b.data, n, g, kr);
  if (comm) comm->all_reduce(&R, 1, WireType::F32, ReduceOp::Max);
  words_.resize(static_cast<size_t>(g.words));
  quantize(R, g, n, kq, words_.data());
  if (local) decode(words_.data(), R, 1, g, kr, n, local);
  if (comm) comm->all_reduce(words_.data(), g.words, WireType::U64, ReduceOp::Sum);
  decode(words_.data(), R, p, g, kr, n, out);
}

void ThcCompressor::step(GradBucket b, Communicator& comm) { run(b, &comm, nullptr, b.data); }

void ThcCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  run(b, &comm, local, b.data);
}

void ThcCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                              const BucketLayout& layout) {
  run({bucket_index, const_cast<float*>(in), &layout}, nullptr, nullptr, out);
}

namespace {

ThcParams thc_params_of(const SchemeArgs& a) {
  ThcParams p;
  p.bits = static_cast<int>(a.get_int("bits", 4));
  p.sat = a.get_double("sat", 0.0);
  const std::string rot = a.get_string("rot", "full");
  if (rot != "full") {
    char* end = nullptr;
    const long t = std::strtol(rot.c_str(), &end, 10);
    if (end == rot.c_str() || *end != '\0' || t < 0 || t > 62)
      throw CompressorError("thc: rot=" + rot + " must be 'full' or a stage count in [0, 62]");
    p.rot = static_cast<int>(t);
  }
  p.block = a.get_int("block", 65536);
  p.seed = a.get_seed();
  return p;
}

// cuda/thc.cu on the padded length m: flip_pad (reads x, writes y), the forward rotation,
// range_partials (reads y), range_final, quantize_pack (reads y, writes the lane words);
// decode: unpack_lanes (reads the words, writes z), the inverse rotation, unflip (reads z,
// writes out). A rotation of t stages is one shared-memory pass over the first
// min(t, log2 min(L, 2048)) stages, then one strided pass per 5 further stages, each
// reading and writing the whole array (thc.cu's kSmemTile, kStridedStages).
CodecWork thc_gpu_work(const SchemeArgs& a, const BucketLayout& layout, int world) {
  const int64_t n = layout.numel();
  const ThcGeometry g = ThcGeometry::of(thc_params_of(a), n, world);
  const double m = static_cast<double>(g.m), words = 8.0 * static_cast<double>(g.words);
  double rotation_passes = 0;
  if (g.stages > 0) {
    const int64_t tile = std::min<int64_t>(g.L, 2048);
    int in_tile = 0;
    while ((int64_t{1} << in_tile) < tile && in_tile < g.stages) ++in_tile;
    rotation_passes = 1 + (g.stages - in_tile + 4) / 5;
  }
  const GpuWork rotation{8.0 * m * rotation_passes, rotation_passes, 0, false};
  CodecWork w;
  w.encode = GpuWork{4.0 * n + 4.0 * m + 4.0 * m + 4.0 * m + words, 4, 0, false} + rotation;
  w.decode = GpuWork{words + 4.0 * m + 4.0 * m + 4.0 * n, 2, 0, false} + rotation;
  return w;
}

}  // namespace

void register_thc(Registry& r) {
  r.add({.name = "thc",
         .params = "bits=<1..16, default 4>, sat=<clip at sat x RMS after rotation, default 0 = off>, "
                   "rot=<full | number of butterfly stages, default full>, block=<power of two, default 65536>, "
                   "seed=<default 0>",
         .summary = "THC: shared randomized Hadamard rotation, shared scale, stochastic integer grid; "
                   "all-reduce of overflow-free integer lanes",
         .cpu = [](const SchemeArgs& a) { return std::make_unique<ThcCompressor>(thc_params_of(a)); },
         .facts = {.recommend_grid = {"thc"}, .cost_grid = {"thc:bits={2|8}"}, .gpu_work = thc_gpu_work}});
}

}  // namespace gcu::compress
