// Device twins of compressors/low_precision.cpp: float <-> IEEE half / bfloat16 with the
// SAME integer bit manipulation as the CPU helpers (not __float2half_rn), so that the
// wire words are bit-identical to the CPU ones, NaN payloads included.
// C++17; included by cast16.cu (fp16 and bf16) only.
#pragma once

#include <cstdint>

namespace gcu::cuda::lowp {

__device__ __forceinline__ uint32_t fbits(float f) { return __float_as_uint(f); }
__device__ __forceinline__ float bitsf(uint32_t u) { return __uint_as_float(u); }

__device__ __forceinline__ uint16_t f2h(float f) {
  const uint32_t u = fbits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  const uint32_t inf_nan = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
  constexpr uint32_t magic_u = ((127u - 15u) + (23u - 10u) + 1u) << 23;  // 0.5f
  const uint32_t sub = fbits(__fadd_rn(bitsf(a), bitsf(magic_u))) - magic_u;
  const uint32_t norm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  const uint32_t r = a >= 0x47800000u ? inf_nan : (a < 0x38800000u ? sub : norm);
  return static_cast<uint16_t>(r | sign);
}

__device__ __forceinline__ float h2f(uint16_t h) {
  const uint32_t hu = h;
  const uint32_t shifted = (hu & 0x7fffu) << 13;
  const uint32_t exp = shifted & 0x0f800000u;
  const uint32_t o = shifted + ((127u - 15u) << 23);
  const uint32_t infnan = o + ((128u - 16u) << 23);
  const float den = __fsub_rn(bitsf(o + (1u << 23)), bitsf(113u << 23));
  const uint32_t r = exp == 0x0f800000u ? infnan : (exp == 0 ? fbits(den) : o);
  return bitsf(r | ((hu & 0x8000u) << 16));
}

__device__ __forceinline__ uint16_t f2bf(float f) {
  const uint32_t u = fbits(f);
  const uint32_t nan = (u >> 16) | 0x40u;
  const uint32_t rnd = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rnd);
}
__device__ __forceinline__ float bf2f(uint16_t h) { return bitsf(static_cast<uint32_t>(h) << 16); }

}  // namespace gcu::cuda::lowp
