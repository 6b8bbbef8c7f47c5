// Shared helper of the "fp16" and "bf16" schemes (fp16.h, bf16.h): branch-free, vectorizable
// float <-> IEEE half / bfloat16 conversion of whole buffers (round to nearest even, NaN
// and Inf preserved, overflow to Inf), bit-identical to the scalar reference in half.h
// (tests/compressors/fp16_test.cpp checks that on edge cases and random bit patterns).
#pragma once

#include <cstdint>

namespace gcu::compress::lowp {

// Use the x86 F16C instructions when the CPU has them (default: on). Returns whether the
// SIMD path is now active; tests switch it off to check the portable code too.
bool use_simd(bool on);

// dst[i] = half(src[i] * scale)
void to_half(const float* src, uint16_t* dst, int64_t n, float scale);
// dst[i] = float(src[i]) * scale
void from_half(const uint16_t* src, float* dst, int64_t n, float scale);
void to_bf16(const float* src, uint16_t* dst, int64_t n, float scale);
void from_bf16(const uint16_t* src, float* dst, int64_t n, float scale);

}  // namespace gcu::compress::lowp
