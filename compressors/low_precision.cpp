// Buffer conversions for fp16/bf16 (low_precision.h). Branch-free selects so that GCC
// vectorizes the loops (after F. Giesen's float_to_half_fast3_rtne / half_to_float).
#include "low_precision.h"

#include <atomic>
#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace gcu::compress::lowp {
namespace {
constexpr int64_t kLowPrecisionParallelMin = 1 << 16;  // below this, OpenMP start-up costs more than it saves

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

#if defined(__x86_64__) && defined(__GNUC__)
#define GCU_HAVE_F16C_PATH 1
// x86 F16C path (one instruction per 8 conversions), chosen at run time when the CPU has
// AVX2 and F16C. Fixed up to stay bit-identical with the portable code: an encoded NaN is
// always sign | 0x7e00 (F16C keeps payload bits), a decoded NaN keeps its payload
// unquieted (F16C sets the quiet bit).
std::atomic<bool> g_use_simd{true};
// F16C from CPUID (leaf 1, ECX bit 29): clang (<= 15) rejects __builtin_cpu_supports("f16c").
bool cpuid_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
}
bool cpu_has_f16c() {
  static const bool ok = __builtin_cpu_supports("avx2") && cpuid_f16c();
  return ok && g_use_simd.load(std::memory_order_relaxed);
}

__attribute__((target("avx2,f16c"))) void to_half_f16c(const float* src, uint16_t* dst,
                                                         int64_t lo, int64_t hi, float scale) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256i absmask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i qnan = _mm256_set1_epi32(0x7e00);
  int64_t i = lo;
  for (; i + 8 <= hi; i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(src + i), s);
    const __m256i u = _mm256_castps_si256(v);
    const __m128i h = _mm256_cvtps_ph(v, 0);  // round to nearest even
    const __m256i isnan = _mm256_cmpgt_epi32(_mm256_and_si256(u, absmask), inf);
    // NaN lanes -> sign | 0x7e00 (computed in 32-bit lanes, then narrowed)
    const __m256i sign16 = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x8000));
    const __m256i nanval = _mm256_or_si256(sign16, qnan);
    const __m256i h32 = _mm256_cvtepu16_epi32(h);
    const __m256i r32 = _mm256_blendv_epi8(h32, nanval, isnan);
    const __m256i packed = _mm256_packus_epi32(r32, r32);  // per 128-bit lane
    const __m128i out = _mm_unpacklo_epi64(_mm256_castsi256_si128(packed),
                                           _mm256_extracti128_si256(packed, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), out);
  }
  for (; i < hi; ++i) dst[i] = f2h(src[i] * scale);
}

__attribute__((target("avx2,f16c"))) void from_half_f16c(const uint16_t* src, float* dst,
                                                           int64_t lo, int64_t hi, float scale,
                                                           bool multiply) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256i expm = _mm256_set1_epi32(0x7c00), mantm = _mm256_set1_epi32(0x3ff);
  const __m256i zero = _mm256_setzero_si256();
  int64_t i = lo;
  for (; i + 8 <= hi; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m256 f = _mm256_cvtph_ps(h);
    const __m256i h32 = _mm256_cvtepu16_epi32(h);
    const __m256i isnan = _mm256_andnot_si256(
        _mm256_cmpeq_epi32(_mm256_and_si256(h32, mantm), zero),
        _mm256_cmpeq_epi32(_mm256_and_si256(h32, expm), expm));
    const __m256i ref = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(h32, _mm256_set1_epi32(0x8000)), 16),
                        _mm256_set1_epi32(0x7f800000)),
        _mm256_slli_epi32(_mm256_and_si256(h32, mantm), 13));
    f = _mm256_castsi256_ps(_mm256_blendv_epi8(_mm256_castps_si256(f), ref, isnan));
    if (multiply) f = _mm256_mul_ps(f, s);
    _mm256_storeu_ps(dst + i, f);
  }
  for (; i < hi; ++i) dst[i] = multiply ? h2f(src[i]) * scale : h2f(src[i]);
}
#endif
}  // namespace

// Runs fn(lo, hi) over [0, n) split into one contiguous range per OpenMP thread.
template <class F>
void split(int64_t n, F fn) {
#pragma omp parallel if (n >= kLowPrecisionParallelMin)
  {
#ifdef _OPENMP
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const int64_t t = 0, nt = 1;
#endif
    fn(n * t / nt, n * (t + 1) / nt);
  }
}

bool use_simd(bool on) {
#ifdef GCU_HAVE_F16C_PATH
  g_use_simd = on;
  return cpu_has_f16c();
#else
  (void)on;
  return false;
#endif
}

void to_half(const float* src, uint16_t* dst, int64_t n, float scale) {
#ifdef GCU_HAVE_F16C_PATH
  if (cpu_has_f16c()) return split(n, [&](int64_t lo, int64_t hi) { to_half_f16c(src, dst, lo, hi, scale); });
#endif
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = f2h(src[i] * scale);  // (NaN * s stays NaN)
}
void from_half(const uint16_t* src, float* dst, int64_t n, float scale) {
#ifdef GCU_HAVE_F16C_PATH
  if (cpu_has_f16c())
    return split(n, [&](int64_t lo, int64_t hi) { from_half_f16c(src, dst, lo, hi, scale, scale != 1.0f); });
#endif
  if (scale == 1.0f) {  // no multiply: keeps NaN payloads bit-exact
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
    for (int64_t i = 0; i < n; ++i) dst[i] = h2f(src[i]);
    return;
  }
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = h2f(src[i]) * scale;
}
void to_bf16(const float* src, uint16_t* dst, int64_t n, float scale) {
  if (scale == 1.0f) {  // keeps NaN payload bits, as half.h's float_to_bf16 does
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
    for (int64_t i = 0; i < n; ++i) dst[i] = f2bf(src[i]);
    return;
  }
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = f2bf(src[i] * scale);
}
void from_bf16(const uint16_t* src, float* dst, int64_t n, float scale) {
  if (scale == 1.0f) {
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
    for (int64_t i = 0; i < n; ++i) dst[i] = bf2f(src[i]);
    return;
  }
#pragma omp parallel for simd schedule(static) if (n >= kLowPrecisionParallelMin)
  for (int64_t i = 0; i < n; ++i) dst[i] = bf2f(src[i]) * scale;
}

}  // namespace gcu::compress::lowp
