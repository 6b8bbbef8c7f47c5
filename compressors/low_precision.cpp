// Buffer conversions for fp16/bf16 (low_precision.h). Branch-free selects so that GCC
// vectorizes the loops (after F. Giesen's float_to_half_fast3_rtne / half_to_float).
#include "low_precision.h"

#include <cstring>

namespace gcu::compress::lowp {
namespace {
constexpr int64_t kParallelMin = 1 << 16;  // below this, OpenMP start-up costs more than it saves

inline uint32_t fbits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bitsf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t f2h(float f) {
  const uint32_t u = fbits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  // Inf/NaN or overflow (>= 65536 before rounding; [65520, 65536) overflows via rounding).
  const uint32_t inf_nan = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
  // Subnormal or zero half: add 0.5f so that the float's ulp is 2^-24, FP rounding does RTNE.
  constexpr uint32_t magic_u = ((127u - 15u) + (23u - 10u) + 1u) << 23;  // 0.5f
  const uint32_t sub = fbits(bitsf(a) + bitsf(magic_u)) - magic_u;
  // Normal: rebias exponent and round to nearest even on the 13 dropped bits.
  const uint32_t norm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;  // (15-127)<<23 = 0xc8000000
  const uint32_t r = a >= 0x47800000u ? inf_nan : (a < 0x38800000u ? sub : norm);
  return static_cast<uint16_t>(r | sign);
}

inline float h2f(uint16_t h) {
  const uint32_t hu = h;
  const uint32_t shifted = (hu & 0x7fffu) << 13;
  const uint32_t exp = shifted & 0x0f800000u;
  const uint32_t o = shifted + ((127u - 15u) << 23);
  const uint32_t infnan = o + ((128u - 16u) << 23);
  const float den = bitsf(o + (1u << 23)) - bitsf(113u << 23);
  const uint32_t r = exp == 0x0f800000u ? infnan : (exp == 0 ? fbits(den) : o);
  return bitsf(r | ((hu & 0x8000u) << 16));
}

inline uint16_t f2bf(float f) {
  const uint32_t u = fbits(f);
  const uint32_t nan = (u >> 16) | 0x40u;
  const uint32_t rnd = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rnd);
}
inline float bf2f(uint16_t h) { return bitsf(static_cast<uint32_t>(h) << 16); }
}  // namespace

void to_half(const float* src, uint16_t* dst, int64_t n, float scale) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = f2h(src[i] * scale);  // (NaN * s stays NaN)
}
void from_half(const uint16_t* src, float* dst, int64_t n, float scale) {
  if (scale == 1.0f) {  // no multiply: keeps NaN payloads bit-exact
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) dst[i] = h2f(src[i]);
    return;
  }
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = h2f(src[i]) * scale;
}
void to_bf16(const float* src, uint16_t* dst, int64_t n, float scale) {
  if (scale == 1.0f) {  // keeps NaN payload bits, as half.h's float_to_bf16 does
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) dst[i] = f2bf(src[i]);
    return;
  }
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = f2bf(src[i] * scale);
}
void from_bf16(const uint16_t* src, float* dst, int64_t n, float scale) {
  if (scale == 1.0f) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) dst[i] = bf2f(src[i]);
    return;
  }
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = bf2f(src[i]) * scale;
}

}  // namespace gcu::compress::lowp
