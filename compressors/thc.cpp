// "thc" on the CPU (thc.h): sign flips + partial/full Hadamard, shared range, stochastic
// integer grid packed in overflow-free lanes, integer all-reduce, inverse rotation.
#include "thc.h"

#include "bitpack.h"
#include "hadamard.h"
#include "half.h"
#include "rng.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace gcu::compress {
namespace {

constexpr uint64_t kRotationSalt = ~uint64_t{0};
constexpr int64_t kParallelMin = 1 << 16;
constexpr int64_t kChunk = 1 << 15;  // chunks never cross a multiple of 2^32: 32-bit lanes inside

// Runs fn(b, e) over [0, m) in chunks, in parallel for large m.
template <class Fn>
void for_chunks(int64_t m, Fn fn) {
  const int64_t nc = (m + kChunk - 1) / kChunk;
#pragma omp parallel for if (m > kParallelMin) schedule(static)
  for (int64_t c = 0; c < nc; ++c) fn(c * kChunk, std::min(m, (c + 1) * kChunk));
}

inline uint32_t hi_key(uint64_t key, int64_t b) {
  return static_cast<uint32_t>(key >> 32) ^ static_cast<uint32_t>(static_cast<uint64_t>(b) >> 32);
}

// y[j] = D_j x[j] on [b, e).
GCU_CLONES void flip(const float* x, int64_t b, int64_t e, uint64_t kr, float* y) {
  const uint32_t klo = static_cast<uint32_t>(kr), khi = hi_key(kr, b);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    y[b + j] = bits_float(float_bits(x[b + j]) ^ (h & 0x80000000u));
  }
}

// q[j] = min(G, floor((clamp(y_j, -R, R) + R) * inv + u_j)) on [b, e); yb points at y_b.
GCU_CLONES void levels(const float* yb, int64_t b, int64_t e, float R, float inv, uint32_t G,
                       uint64_t kq, uint16_t* q) {
  const uint32_t klo = static_cast<uint32_t>(kq), khi = hi_key(kq, b);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    const float yc = std::min(std::max(yb[j], -R), R);
    const float t = (yc + R) * inv + static_cast<float>(h >> 8) * 0x1p-24f;
    const uint32_t l = static_cast<uint32_t>(static_cast<int32_t>(t));
    q[b + j] = static_cast<uint16_t>(l < G ? l : G);
  }
}

// max |y| and sum y^2 on [b, e) (float partial sums of 1024, added in double).
GCU_CLONES void range_stats(const float* y, int64_t b, int64_t e, float* mx, double* ss) {
  float m = 0;
  double total = 0;
  for (int64_t s = b; s < e; s += 1024) {
    const int64_t se = std::min(e, s + 1024);
    float part = 0;
#pragma omp simd reduction(max : m) reduction(+ : part)
    for (int64_t j = s; j < se; ++j) {
      const float a = std::fabs(y[j]);
      m = std::max(m, a);
      part += a * a;
    }
    total += part;
  }
  *mx = m;
  *ss = total;
}

template <int W>
inline __attribute__((always_inline)) void pack_fixed(const uint16_t* q, int64_t wb, int64_t we, uint64_t* words) {
  constexpr int k = 64 / W;
  for (int64_t i = wb; i < we; ++i) {
    uint64_t acc = 0;
    for (int l = 0; l < k; ++l) acc |= static_cast<uint64_t>(q[i * k + l]) << (l * W);
    words[i] = acc;
  }
}
// GCC makes no target clones of templates: non-template wrappers carry them.
GCU_CLONES void pack4(const uint16_t* q, int64_t wb, int64_t we, uint64_t* w) { pack_fixed<4>(q, wb, we, w); }
GCU_CLONES void pack8(const uint16_t* q, int64_t wb, int64_t we, uint64_t* w) { pack_fixed<8>(q, wb, we, w); }
GCU_CLONES void pack16(const uint16_t* q, int64_t wb, int64_t we, uint64_t* w) { pack_fixed<16>(q, wb, we, w); }

void pack_lanes(const uint16_t* q, int64_t m, int w, int k, uint64_t* words, int64_t nw) {
  if (w == 4 || w == 8 || w == 16) {
    const int64_t full = m / k;
    constexpr int64_t kWords = 4096;
#pragma omp parallel for if (m > kParallelMin) schedule(static)
    for (int64_t wb = 0; wb < full; wb += kWords) {
      const int64_t we = std::min(full, wb + kWords);
      if (w == 4) pack4(q, wb, we, words);
      else if (w == 8) pack8(q, wb, we, words);
      else pack16(q, wb, we, words);
    }
    if (full < nw) {
      uint64_t acc = 0;
      for (int64_t j = full * k; j < m; ++j) acc |= static_cast<uint64_t>(q[j]) << ((j - full * k) * w);
      words[full] = acc;
    }
    return;
  }
#pragma omp parallel for if (m > kParallelMin) schedule(static)
  for (int64_t i = 0; i < nw; ++i) {
    uint64_t acc = 0;
    const int64_t b = i * k;
    const int cnt = static_cast<int>(std::min<int64_t>(k, m - b));
    for (int l = 0; l < cnt; ++l) acc |= static_cast<uint64_t>(q[b + l]) << (l * w);
    words[i] = acc;
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
GCU_CLONES void unpack4(const uint64_t* w, int64_t wb, int64_t we, float R, float p, float s, float* z) {
  unpack_fixed<4>(w, wb, we, R, p, s, z);
}
GCU_CLONES void unpack8(const uint64_t* w, int64_t wb, int64_t we, float R, float p, float s, float* z) {
  unpack_fixed<8>(w, wb, we, R, p, s, z);
}
GCU_CLONES void unpack16(const uint64_t* w, int64_t wb, int64_t we, float R, float p, float s, float* z) {
  unpack_fixed<16>(w, wb, we, R, p, s, z);
}

// z[j] = -R + (S_j / p) * step for the first m lanes of `words`.
void unpack_lanes(const uint64_t* words, int64_t m, int w, int k, float R, float p, float step, float* z) {
  const uint64_t mask = (w >= 64) ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  const int64_t nw = (m + k - 1) / k;
  if (w == 4 || w == 8 || w == 16) {
    const int64_t full = m / k;
    constexpr int64_t kWords = 4096;
#pragma omp parallel for if (m > kParallelMin) schedule(static)
    for (int64_t wb = 0; wb < full; wb += kWords) {
      const int64_t we = std::min(full, wb + kWords);
      if (w == 4) unpack4(words, wb, we, R, p, step, z);
      else if (w == 8) unpack8(words, wb, we, R, p, step, z);
      else unpack16(words, wb, we, R, p, step, z);
    }
    for (int64_t j = full * k; j < m; ++j)
      z[j] = -R + static_cast<float>(static_cast<uint32_t>((words[full] >> ((j - full * k) * w)) & mask)) / p * step;
    return;
  }
#pragma omp parallel for if (m > kParallelMin) schedule(static)
  for (int64_t i = 0; i < nw; ++i) {
    const int64_t b = i * k;
    const int cnt = static_cast<int>(std::min<int64_t>(k, m - b));
    const uint64_t word = words[i];
    for (int l = 0; l < cnt; ++l)
      z[b + l] = -R + (static_cast<float>((word >> (l * w)) & mask) / p) * step;
  }
}

// out[j] = 2^-t D_j z[j] on [b, e) (no sign flips when t = 0).
GCU_CLONES void unflip(const float* z, int64_t b, int64_t e, float scale, bool flips, uint64_t kr,
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
  double ss = 0;
#pragma omp parallel for reduction(max : mx) reduction(+ : ss) if (len > kParallelMin) schedule(static)
  for (int64_t c = 0; c < nc; ++c) {
    float cm;
    double cs;
    range_stats(y, c * kChunk, std::min(len, (c + 1) * kChunk), &cm, &cs);
    mx = std::max(mx, cm);
    ss += cs;
  }
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
  thread_local std::vector<uint16_t> q;
  q.resize(static_cast<size_t>(g.m));
  const float inv = R > 0 ? static_cast<float>(G) / (2.0f * R) : 0.0f;
  const float* y = src_;
  uint16_t* qd = q.data();
  const int64_t real = g.stages > 0 ? g.m : n;  // src_ holds this many elements
  for_chunks(real, [&](int64_t b, int64_t e) { levels(y + b, b, e, R, inv, G, kq, qd); });
  if (real < g.m) {  // zero padding (t = 0): same rule, value 0, chunk-aligned pieces
    const std::vector<float> zeros(static_cast<size_t>(g.m - real), 0.0f);
    for (int64_t b = real, e; b < g.m; b = e) {
      e = std::min(g.m, (b / kChunk + 1) * kChunk);
      levels(zeros.data() + (b - real), b, e, R, inv, G, kq, qd);
    }
  }
  pack_lanes(q.data(), g.m, g.lane_bits, g.lanes_per_word, words, g.words);
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
                 2.0f * R / static_cast<float>(G), out);
    return;
  }
  y_.resize(static_cast<size_t>(g.m));
  unpack_lanes(words, g.m, g.lane_bits, g.lanes_per_word, R, static_cast<float>(p),
               2.0f * R / static_cast<float>(G), y_.data());
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

void register_thc(Registry& r) {
  r.add({"thc",
         "bits=<1..16, default 4>, sat=<clip at sat x RMS after rotation, default 0 = off>, "
         "rot=<full | number of butterfly stages, default full>, block=<power of two, default 65536>, "
         "seed=<default 0>",
         "THC: shared randomized Hadamard rotation, shared scale, stochastic integer grid; "
         "all-reduce of overflow-free integer lanes",
         [](const SchemeArgs& a) {
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
           p.seed = static_cast<uint64_t>(a.get_int("seed", 0));
           return std::make_unique<ThcCompressor>(p);
         },
         nullptr});
}

}  // namespace gcu::compress
