// Sign-bit kernels of bitpack.h: packing IEEE sign bits into words, the majority vote and
// the weighted sum over p ranks' packed signs (scalar and AVX2 versions, same results).
#include "bitpack.h"

#include "half.h"
#include "rng.h"
#include "sumsq.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define GCU_HAVE_X86 1
#endif

namespace gcu::compress::bits {
namespace {

constexpr int64_t kSignsParallelMin = 1 << 16;  // elements; below this OpenMP costs more than it saves


double pack_signs_scalar(const float* x, int64_t n, uint64_t* words) {
  double total = 0;
  const int64_t nw = sign_words(n);
#pragma omp parallel for reduction(+ : total) if (n > kSignsParallelMin) schedule(static)
  for (int64_t w = 0; w < nw; ++w) {
    const int64_t b = w * 64, e = std::min(n, b + 64);
    uint64_t word = 0;
    float part = 0;
    for (int64_t i = b; i < e; ++i) {
      const uint32_t u = float_bits(x[i]);
      word |= static_cast<uint64_t>(u >> 31) << (i - b);
      part += bits_float(u & 0x7fffffffu);
    }
    words[w] = word;
    total += part;
  }
  return total;
}

#ifdef GCU_HAVE_X86
__attribute__((target("avx2"))) double pack_signs_avx2(const float* x, int64_t n, uint64_t* words) {
  const int64_t full = n / 64;
  double total = 0;
  const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  constexpr int64_t kRun = 16;  // words per float partial sum (1024 elements)
  const int64_t runs = (full + kRun - 1) / kRun;
#pragma omp parallel for reduction(+ : total) if (n > kSignsParallelMin) schedule(static)
  for (int64_t run = 0; run < runs; ++run) {
    __m256 acc = _mm256_setzero_ps();
    const int64_t we = std::min(full, (run + 1) * kRun);
    for (int64_t w = run * kRun; w < we; ++w) {
      const float* p = x + w * 64;
      uint64_t word = 0;
      for (int g = 0; g < 8; ++g) {
        const __m256 v = _mm256_loadu_ps(p + 8 * g);
        word |= static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_ps(v))) << (8 * g);
        acc = _mm256_add_ps(acc, _mm256_and_ps(v, absmask));
      }
      words[w] = word;
    }
    const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    total += _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
  }
  if (full * 64 < n) total += pack_signs_scalar(x + full * 64, n - full * 64, words + full);
  return total;
}

// For 8 elements starting at bit 8g of a word: lane j is all ones when bit j is set.
__attribute__((target("avx2"))) inline __m256i lanes_of_byte(uint64_t word, int g) {
  const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i b = _mm256_set1_epi32(static_cast<int>((word >> (8 * g)) & 0xffu));
  return _mm256_cmpeq_epi32(_mm256_and_si256(b, sel), sel);
}

__attribute__((target("avx2"))) void store_partial(float* out, __m256 v, int64_t count) {
  if (count >= 8) { _mm256_storeu_ps(out, v); return; }
  alignas(32) float tmp[8];
  _mm256_store_ps(tmp, v);
  for (int64_t j = 0; j < count; ++j) out[j] = tmp[j];
}

__attribute__((target("avx2"))) void vote_signs_avx2(const uint64_t* all, int64_t stride, int p,
                                                     int64_t n, float pos, float neg, float tie,
                                                     float* out) {
  const int64_t nw = sign_words(n);
  const __m256i P = _mm256_set1_epi32(p);
  const __m256 vpos = _mm256_set1_ps(pos), vneg = _mm256_set1_ps(neg), vtie = _mm256_set1_ps(tie);
#pragma omp parallel for if (n > kSignsParallelMin) schedule(static)
  for (int64_t w = 0; w < nw; ++w) {
    for (int g = 0; g < 8; ++g) {
      const int64_t i0 = w * 64 + 8 * g;
      if (i0 >= n) break;
      if (p == 1) {  // no vote: the sign itself
        store_partial(out + i0, _mm256_blendv_ps(vpos, vneg, _mm256_castsi256_ps(lanes_of_byte(all[w], g))), n - i0);
        continue;
      }
      __m256i cnt = _mm256_setzero_si256();
      for (int r = 0; r < p; ++r) cnt = _mm256_sub_epi32(cnt, lanes_of_byte(all[r * stride + w], g));
      const __m256i twice = _mm256_add_epi32(cnt, cnt);
      const __m256 more_neg = _mm256_castsi256_ps(_mm256_cmpgt_epi32(twice, P));
      const __m256 more_pos = _mm256_castsi256_ps(_mm256_cmpgt_epi32(P, twice));
      __m256 v = _mm256_blendv_ps(vtie, vneg, more_neg);
      v = _mm256_blendv_ps(v, vpos, more_pos);
      store_partial(out + i0, v, n - i0);
    }
  }
}

__attribute__((target("avx2"))) void sum_signs_avx2(const uint64_t* all, int64_t stride, int p,
                                                    int64_t n, const float* scale, float* out) {
  const int64_t nw = sign_words(n);
#pragma omp parallel for if (n > kSignsParallelMin) schedule(static)
  for (int64_t w = 0; w < nw; ++w) {
    for (int g = 0; g < 8; ++g) {
      const int64_t i0 = w * 64 + 8 * g;
      if (i0 >= n) break;
      __m256 acc = _mm256_setzero_ps();
      for (int r = 0; r < p; ++r) {
        const __m256 m = _mm256_castsi256_ps(lanes_of_byte(all[r * stride + w], g));
        acc = _mm256_add_ps(acc, _mm256_blendv_ps(_mm256_set1_ps(scale[r]), _mm256_set1_ps(-scale[r]), m));
      }
      store_partial(out + i0, acc, n - i0);
    }
  }
}
#endif

inline bool bit_of(const uint64_t* words, int64_t i) { return (words[i >> 6] >> (i & 63)) & 1u; }

}  // namespace

bool have_avx2() {
#ifdef GCU_HAVE_X86
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

double pack_signs(const float* x, int64_t n, uint64_t* words) {
  if (n <= 0) return 0.0;
#ifdef GCU_HAVE_X86
  if (have_avx2()) return pack_signs_avx2(x, n, words);
#endif
  return pack_signs_scalar(x, n, words);
}

void vote_signs(const uint64_t* all, int64_t stride, int p, int64_t n, float pos, float neg,
                float tie, float* out) {
  if (n <= 0) return;
#ifdef GCU_HAVE_X86
  if (have_avx2()) return vote_signs_avx2(all, stride, p, n, pos, neg, tie, out);
#endif
#pragma omp parallel for if (n > kSignsParallelMin) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    int cnt = 0;
    for (int r = 0; r < p; ++r) cnt += bit_of(all + r * stride, i);
    out[i] = 2 * cnt > p ? neg : (2 * cnt < p ? pos : tie);
  }
}

void sum_signs(const uint64_t* all, int64_t stride, int p, int64_t n, const float* scale,
               float* out) {
  if (n <= 0) return;
#ifdef GCU_HAVE_X86
  if (have_avx2()) return sum_signs_avx2(all, stride, p, n, scale, out);
#endif
#pragma omp parallel for if (n > kSignsParallelMin) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0;
    for (int r = 0; r < p; ++r) acc += bit_of(all + r * stride, i) ? -scale[r] : scale[r];
    out[i] = acc;
  }
}

}  // namespace gcu::compress::bits
