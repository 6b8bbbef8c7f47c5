// Counter-based random numbers shared by the CPU and CUDA schemes (qsgd, terngrad, thc,
// powersgd): a value depends only on (key, element index), never on a sequential state,
// so every thread, every rank and the GPU kernels draw the same numbers for the same
// element. Header-only, constexpr-friendly, no <random>.
//
// Definitions (the CUDA versions must reproduce them bit for bit):
//   mix64(z)        = splitmix64 finalizer: z^=z>>30; z*=0xbf58476d1ce4e5b9;
//                     z^=z>>27; z*=0x94d049bb133111eb; z^=z>>31
//   stream_key(seed, a, b, c)
//                   = k0 = mix64(seed + G); k1 = mix64(k0 ^ (a + G));
//                     k2 = mix64(k1 ^ (b + G)); return mix64(k2 ^ (c + G)),  G = 0x9e3779b97f4a7c15
//                     Schemes use a = bucket index, b = per-bucket step counter, c = rank
//                     (or a fixed salt when all ranks must agree, see each scheme).
//   hash32(x)       = "lowbias32": x^=x>>16; x*=0x7feb352d; x^=x>>15; x*=0x846ca68b; x^=x>>16
//   bits32(key, i)  = hash32(hash32(uint32(i) ^ uint32(key)) ^ uint32(key >> 32) ^ uint32(i >> 32))
//   uniform(key, i) = (bits32(key, i) >> 8) * 2^-24           in [0, 1), exact in float
//   normal(key, j)  = sqrt(-2 ln u1) * cos(2 pi u2) in double, rounded to float, with
//                     u1 = ((bits32(key, 2j) >> 8) + 1) * 2^-24 in (0, 1],
//                     u2 = (bits32(key, 2j + 1) >> 8) * 2^-24
//                     (used only for PowerSGD's Q, which is small: the CUDA version computes
//                     it on the host with this function and copies it).
// All arithmetic is on unsigned integers with wrap-around; the 32-bit hash vectorizes on
// AVX2 (vpmulld) and costs a few integer ops per element on a GPU.
#pragma once

#include <cmath>
#include <cstdint>

namespace gcu::compress::rng {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

constexpr uint64_t mix64(uint64_t z) {
  z ^= z >> 30;
  z *= 0xbf58476d1ce4e5b9ULL;
  z ^= z >> 27;
  z *= 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return z;
}

constexpr uint64_t stream_key(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t k = mix64(seed + kGolden);
  k = mix64(k ^ (a + kGolden));
  k = mix64(k ^ (b + kGolden));
  return mix64(k ^ (c + kGolden));
}

constexpr uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

constexpr uint32_t bits32(uint64_t key, uint64_t i) {
  return hash32(hash32(static_cast<uint32_t>(i) ^ static_cast<uint32_t>(key)) ^
                static_cast<uint32_t>(key >> 32) ^ static_cast<uint32_t>(i >> 32));
}

constexpr float uniform(uint64_t key, uint64_t i) {
  return static_cast<float>(bits32(key, i) >> 8) * 0x1p-24f;
}

inline float normal(uint64_t key, uint64_t j) {
  const double u1 = (static_cast<double>(bits32(key, 2 * j) >> 8) + 1.0) * 0x1p-24;
  const double u2 = static_cast<double>(bits32(key, 2 * j + 1) >> 8) * 0x1p-24;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

}  // namespace gcu::compress::rng
