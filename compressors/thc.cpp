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

// y[j] = D_j x[j] for j < n, 0 for n <= j < m.
GCU_CLONES void flip_pad(const float* x, int64_t n, int64_t m, uint64_t kr, float* y) {
  const uint32_t klo = static_cast<uint32_t>(kr), khi = static_cast<uint32_t>(kr >> 32);
#pragma omp parallel for if (n > kParallelMin) schedule(static)
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t h = rng::hash32(rng::hash32(static_cast<uint32_t>(j) ^ klo) ^ khi ^
                                   static_cast<uint32_t>(static_cast<uint64_t>(j) >> 32));
    y[j] = bits_float(float_bits(x[j]) ^ (h & 0x80000000u));
  }
  for (int64_t j = n; j < m; ++j) y[j] = 0.0f;
}

// q[j] = min(G, floor((clamp(y, -R, R) + R) * inv + u_j)).
GCU_CLONES void levels(const float* y, int64_t m, float R, float inv, uint32_t G, uint64_t kq,
                       uint16_t* q) {
  const uint32_t klo = static_cast<uint32_t>(kq), khi = static_cast<uint32_t>(kq >> 32);
#pragma omp parallel for if (m > kParallelMin) schedule(static)
  for (int64_t j = 0; j < m; ++j) {
    const uint32_t h = rng::hash32(rng::hash32(static_cast<uint32_t>(j) ^ klo) ^ khi ^
                                   static_cast<uint32_t>(static_cast<uint64_t>(j) >> 32));
    const float yc = std::min(std::max(y[j], -R), R);
    const float t = (yc + R) * inv + static_cast<float>(h >> 8) * 0x1p-24f;
    const uint32_t l = static_cast<uint32_t>(static_cast<int32_t>(t));
    q[j] = static_cast<uint16_t>(l < G ? l : G);
  }
}

void pack_lanes(const uint16_t* q, int64_t m, int w, int k, uint64_t* words, int64_t nw) {
#pragma omp parallel for if (m > kParallelMin) schedule(static)
  for (int64_t i = 0; i < nw; ++i) {
    uint64_t acc = 0;
    const int64_t b = i * k;
    const int cnt = static_cast<int>(std::min<int64_t>(k, m - b));
    for (int l = 0; l < cnt; ++l) acc |= static_cast<uint64_t>(q[b + l]) << (l * w);
    words[i] = acc;
  }
}

// z[j] = -R + (S_j / p) * step for the lanes of `words`.
GCU_CLONES void unpack_lanes(const uint64_t* words, int64_t m, int w, int k, float R, float p,
                             float step, float* z) {
  const uint64_t mask = (w >= 64) ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  const int64_t nw = (m + k - 1) / k;
  if (w == 4 || w == 8 || w == 16) {  // lanes tile the word: element j at a fixed place
    const int sh = w == 4 ? 4 : (w == 8 ? 3 : 2);  // log2 lanes per word
#pragma omp parallel for if (m > kParallelMin) schedule(static)
    for (int64_t j = 0; j < m; ++j) {
      const uint64_t s = (words[j >> sh] >> ((j & ((1 << sh) - 1)) * w)) & mask;
      z[j] = -R + (static_cast<float>(s) / p) * step;
    }
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

// out[j] = 2^-t D_j z[j] for j < n.
GCU_CLONES void unflip(const float* z, int64_t n, float scale, uint64_t kr, float* out) {
  const uint32_t klo = static_cast<uint32_t>(kr), khi = static_cast<uint32_t>(kr >> 32);
#pragma omp parallel for if (n > kParallelMin) schedule(static)
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t h = rng::hash32(rng::hash32(static_cast<uint32_t>(j) ^ klo) ^ khi ^
                                   static_cast<uint32_t>(static_cast<uint64_t>(j) >> 32));
    out[j] = bits_float(float_bits(z[j] * scale) ^ (h & 0x80000000u));
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
  y_.resize(static_cast<size_t>(g.m));
  float* y = y_.data();
  flip_pad(x, n, g.m, kr, y);
  fwht_blocks(y, g.m, g.L, g.stages);
  float mx = 0;
  double ss = 0;
  int64_t bad = 0;
  const int64_t m = g.m;
#pragma omp parallel for reduction(max : mx) reduction(+ : ss, bad) if (m > kParallelMin) schedule(static)
  for (int64_t j = 0; j < m; ++j) {
    const float a = std::fabs(y[j]);
    mx = a > mx ? a : mx;
    ss += static_cast<double>(a) * a;
    bad += !(a <= std::numeric_limits<float>::max());
  }
  if (bad) return std::numeric_limits<float>::infinity();
  if (prm_.sat > 0)
    mx = std::min(mx, static_cast<float>(prm_.sat * std::sqrt(ss / static_cast<double>(m))));
  return mx;
}

void ThcCompressor::quantize(float R, const ThcGeometry& g, uint64_t kq, uint64_t* words) const {
  const uint32_t G = (1u << prm_.bits) - 1;
  if (!std::isfinite(R)) {
    std::fill(words, words + g.words, uint64_t{0});
    return;
  }
  thread_local std::vector<uint16_t> q;
  q.resize(static_cast<size_t>(g.m));
  const float inv = R > 0 ? static_cast<float>(G) / (2.0f * R) : 0.0f;
  levels(y_.data(), g.m, R, inv, G, kq, q.data());
  pack_lanes(q.data(), g.m, g.lane_bits, g.lanes_per_word, words, g.words);
}

void ThcCompressor::decode(const uint64_t* words, float R, int p, const ThcGeometry& g,
                           uint64_t kr, int64_t n, float* out) {
  if (!std::isfinite(R)) {
    std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  const uint32_t G = (1u << prm_.bits) - 1;
  y_.resize(static_cast<size_t>(g.m));
  unpack_lanes(words, g.m, g.lane_bits, g.lanes_per_word, R, static_cast<float>(p),
               2.0f * R / static_cast<float>(G), y_.data());
  fwht_blocks(y_.data(), g.m, g.L, g.stages);
  unflip(y_.data(), n, std::ldexp(1.0f, -g.stages), kr, out);
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
  quantize(R, g, kq, words_.data());
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
