// Bit-level kernels of bitpack.h: AVX2 intrinsics for the sign paths (movemask packing,
// byte-broadcast unpacking) and the streamed 8-bit decode, auto-vectorized clones for the
// level codes, OpenMP over blocks of elements when the buffer is large.
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

static_assert(std::endian::native == std::endian::little, "wire formats assume little endian");

constexpr int64_t kBitpackParallelMin = 1 << 16;  // elements; below this OpenMP costs more than it saves


// Runs fn(begin, end, segment) over segments [k0, k1) in blocks that never cross a
// multiple of kBlock, in parallel for large ranges.
constexpr int64_t kBlock = 1 << 15;
template <class Fn>
void for_segment_blocks(const std::vector<int64_t>& seg, size_t k0, size_t k1, Fn fn) {
  const int64_t B = seg[k0], E = seg[k1];
  if (E <= B) return;
  const int64_t first = B / kBlock, nb = (E - 1) / kBlock + 1 - first;
#pragma omp parallel for if (E - B > kBitpackParallelMin) schedule(static)
  for (int64_t i = 0; i < nb; ++i) {
    int64_t b = std::max(B, (first + i) * kBlock);
    const int64_t e = std::min(E, (first + i + 1) * kBlock);
    int64_t k = std::upper_bound(seg.begin() + static_cast<int64_t>(k0), seg.begin() + static_cast<int64_t>(k1), b) -
                seg.begin() - 1;
    while (b < e) {
      const int64_t se = std::min(e, seg[k + 1]);
      if (se > b) fn(b, se, k);
      b = se;
      ++k;
    }
  }
}
template <class Fn>
void for_segment_blocks(const std::vector<int64_t>& seg, Fn fn) {
  for_segment_blocks(seg, 0, seg.size() - 1, fn);
}

// Blocks of for_segment_blocks never cross a multiple of 2^15, hence never a multiple of
// 2^32: the high half of the element index is constant inside a kernel call, so the loops
// run on 32-bit lanes (8 per AVX2 vector).
template <class Code>
inline __attribute__((always_inline)) void levels_kernel(const float* x, int64_t b, int64_t e, float inv, uint32_t s,
                              uint32_t shift, uint64_t key, Code* codes) {
  const uint32_t klo = static_cast<uint32_t>(key);
  const uint32_t khi = static_cast<uint32_t>(key >> 32) ^ static_cast<uint32_t>(static_cast<uint64_t>(b) >> 32);
  const uint32_t base = static_cast<uint32_t>(b), len = static_cast<uint32_t>(e - b);
  const float* xb = x + b;
  Code* cb = codes + b;
  for (uint32_t j = 0; j < len; ++j) {
    const uint32_t u = float_bits(xb[j]);
    const float a = bits_float(u & 0x7fffffffu);
    const uint32_t h = rng::hash32(rng::hash32((base + j) ^ klo) ^ khi);
    const float v = a * inv + static_cast<float>(h >> 8) * 0x1p-24f;
    uint32_t lvl = static_cast<uint32_t>(static_cast<int32_t>(v));
    lvl = lvl < s ? lvl : s;
    cb[j] = static_cast<Code>(lvl | ((u >> 31) << shift));
  }
}

// levels_kernel() for a segment whose scale is so small (subnormal) that s / scale
// overflows float (a * inf would be Inf or NaN, converted to int: UB): the same formula
// in double, where s / scale is finite.
template <class Code>
void levels_tiny(const float* x, int64_t b, int64_t e, float scale, uint32_t s, uint32_t shift,
                 uint64_t key, Code* codes) {
  const uint32_t klo = static_cast<uint32_t>(key);
  const double inv = static_cast<double>(s) / static_cast<double>(scale);
  for (int64_t i = b; i < e; ++i) {
    const uint32_t khi = static_cast<uint32_t>(key >> 32) ^ static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32);
    const uint32_t u = float_bits(x[i]);
    const double a = static_cast<double>(bits_float(u & 0x7fffffffu));
    const uint32_t h = rng::hash32(rng::hash32(static_cast<uint32_t>(i) ^ klo) ^ khi);
    const double v = std::min(a * inv + static_cast<double>(h >> 8) * 0x1p-24, static_cast<double>(s));
    const uint32_t lvl = static_cast<uint32_t>(v);
    codes[i] = static_cast<Code>(lvl | ((u >> 31) << shift));
  }
}

template <class Code>
inline __attribute__((always_inline)) void unlevels_kernel(const Code* codes, int64_t b, int64_t e, float mult,
                                uint32_t shift, bool accumulate, float* out) {
  const uint32_t mask = (1u << shift) - 1u;
  if (accumulate) {
    for (int64_t i = b; i < e; ++i) {
      const uint32_t c = codes[i];
      const float v = static_cast<float>(c & mask) * mult;
      out[i] += (c >> shift) ? -v : v;
    }
  } else {
    for (int64_t i = b; i < e; ++i) {
      const uint32_t c = codes[i];
      const float v = static_cast<float>(c & mask) * mult;
      out[i] = (c >> shift) ? -v : v;
    }
  }
}

// 2- or 4-bit codes: a table maps each byte (8 / W codes) to its +-level values, so the
// bulk is one table load and one multiply per byte; the unaligned ends go one by one.
template <int W>
struct ByteTable {
  static constexpr int per = 8 / W;
  float v[256][per];
  ByteTable() {
    constexpr uint32_t shift = W - 1, mask = (1u << shift) - 1u, wmask = (1u << W) - 1u;
    for (int b = 0; b < 256; ++b)
      for (int l = 0; l < per; ++l) {
        const uint32_t c = (static_cast<uint32_t>(b) >> (l * W)) & wmask;
        const float lv = static_cast<float>(c & mask);
        v[b][l] = (c >> shift) ? -lv : lv;
      }
  }
};

template <int W>
inline __attribute__((always_inline)) void unlevels_small(const uint8_t* bytes, int64_t b, int64_t e, float mult,
                                                          bool accumulate, float* out) {
  static const ByteTable<W> table;
  constexpr int per = 8 / W;
  auto value = [&](int64_t i) { return table.v[bytes[i / per]][i % per] * mult; };
  int64_t i = b;
  for (; i < e && i % per; ++i) out[i] = accumulate ? out[i] + value(i) : value(i);
  const int64_t full_end = e / per * per;
  if (accumulate) {
    for (; i < full_end; i += per) {
      const float* t = table.v[bytes[i / per]];
      for (int l = 0; l < per; ++l) out[i + l] += t[l] * mult;
    }
  } else {
    for (; i < full_end; i += per) {
      const float* t = table.v[bytes[i / per]];
      for (int l = 0; l < per; ++l) out[i + l] = t[l] * mult;
    }
  }
  for (; i < e; ++i) out[i] = accumulate ? out[i] + value(i) : value(i);
}

template <int W>
inline __attribute__((always_inline)) void pack_small(const uint8_t* codes, int64_t wb, int64_t we,
                                                       uint32_t* words) {
  constexpr int per = 32 / W;
  for (int64_t w = wb; w < we; ++w) {
    uint32_t word = 0;
    for (int j = 0; j < per; ++j) word |= static_cast<uint32_t>(codes[w * per + j]) << (j * W);
    words[w] = word;
  }
}

// GCC makes no target clones of templates: these non-template wrappers carry the clones
// and the always-inline bodies above are compiled once per clone.
GCU_CLONES_WIDE void levels_u8(const float* x, int64_t b, int64_t e, float inv, uint32_t s, uint32_t shift,
                          uint64_t key, uint8_t* codes) { levels_kernel(x, b, e, inv, s, shift, key, codes); }
GCU_CLONES_WIDE void levels_u16(const float* x, int64_t b, int64_t e, float inv, uint32_t s, uint32_t shift,
                           uint64_t key, uint16_t* codes) { levels_kernel(x, b, e, inv, s, shift, key, codes); }
GCU_CLONES_WIDE void unlevels_u8(const uint8_t* c, int64_t b, int64_t e, float mult, uint32_t shift, bool acc,
                            float* out) { unlevels_kernel(c, b, e, mult, shift, acc, out); }
GCU_CLONES_WIDE void unlevels_u16(const uint16_t* c, int64_t b, int64_t e, float mult, uint32_t shift, bool acc,
                             float* out) { unlevels_kernel(c, b, e, mult, shift, acc, out); }
GCU_CLONES_WIDE void unlevels_w2(const uint8_t* w, int64_t b, int64_t e, float mult, bool acc, float* out) {
  unlevels_small<2>(w, b, e, mult, acc, out);
}
GCU_CLONES_WIDE void unlevels_w4(const uint8_t* w, int64_t b, int64_t e, float mult, bool acc, float* out) {
  unlevels_small<4>(w, b, e, mult, acc, out);
}
GCU_CLONES_WIDE void pack_w2(const uint8_t* codes, int64_t b, int64_t e, uint32_t* words) { pack_small<2>(codes, b, e, words); }
GCU_CLONES_WIDE void pack_w4(const uint8_t* codes, int64_t b, int64_t e, uint32_t* words) { pack_small<4>(codes, b, e, words); }

// Sum of squares of x[b, e) in the order of sumsq.h (l2; e - b <= sumsq::kChunk), or max
// |x| and the count of NaN/Inf (!l2).
GCU_CLONES_WIDE void sumsq_run(const float* x, int64_t b, int64_t e, bool l2, double* ss, float* mx, int64_t* bad) {
  *ss = 0;
  *mx = 0;
  *bad = 0;
  if (l2) {
    *ss = sumsq::chunk_total(x, b, e);
    return;
  }
  float m = 0;
  int64_t nb = 0;
#pragma omp simd reduction(max : m) reduction(+ : nb)
  for (int64_t i = b; i < e; ++i) {
    const float a = std::fabs(x[i]);
    m = std::max(m, a);
    nb += !(a <= 3.4028234663852886e38f);
  }
  *mx = m;
  *bad = nb;
}

#ifdef GCU_HAVE_X86
// unlevels_kernel() for 8-bit codes, !accumulate, with non-temporal stores (aligned
// body; plain stores for the unaligned head and the tail).
__attribute__((target("avx2"))) void unlevels8_stream_avx2(const uint8_t* codes, int64_t b, int64_t e, float mult,
                                                           float* out) {
  int64_t i = b;
  while (i < e && (reinterpret_cast<uintptr_t>(out + i) & 31u)) ++i;
  if (i > b) unlevels_kernel(codes, b, i, mult, 7, false, out);
  const __m256 vm = _mm256_set1_ps(mult);
  const __m256i m7 = _mm256_set1_epi32(0x7f);
  for (; i + 8 <= e; i += 8) {
    const __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + i)));
    const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(c, m7)), vm);
    const __m256 sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(c, 7), 31));
    _mm256_stream_ps(out + i, _mm256_xor_ps(v, sign));  // (c >> 7) ? -v : v
  }
  if (i < e) unlevels_kernel(codes, i, e, mult, 7, false, out);
  _mm_sfence();
}
#endif
}  // namespace

int code_width(int64_t s) {
  if (s < 1 || s > 32767)
    throw CompressorError("levels s=" + std::to_string(s) + " is out of range [1, 32767]");
  for (int w : {2, 4, 8, 16})
    if (s <= (int64_t{1} << (w - 1)) - 1) return w;
  return 16;
}

std::vector<int64_t> segments_for(const BucketLayout& layout, int64_t block) {
  std::vector<int64_t> seg{0};
  const int64_t n = layout.numel();
  if (block > 0) {
    for (int64_t b = block; b < n; b += block) seg.push_back(b);
  } else {
    int64_t at = 0;
    for (const auto& shape : layout.shapes) {
      int64_t e = 1;
      for (int64_t d : shape) e *= d;
      if (e == 0) continue;
      if (at > 0) seg.push_back(at);
      at += e;
    }
  }
  if (n > 0) seg.push_back(n);
  return seg;  // n == 0: {0}: no segment
}

namespace {
// Scales of segments [k0, k1) (segment_scales()).
void scales_range(const float* x, const std::vector<int64_t>& seg, size_t k0, size_t k1, bool l2,
                  float* scale) {
  for (size_t k = k0; k < k1; ++k) {
    const int64_t b = seg[k], e = seg[k + 1];
    // Chunks of sumsq::kChunk from b, in parallel; their sums of squares are added in
    // chunk order (sumsq.h: the order the CUDA version repeats).
    constexpr int64_t kRun = sumsq::kChunk;
    const int64_t nc = (e - b + kRun - 1) / kRun;
    std::vector<double> chunk_ss(static_cast<size_t>(nc));
    float mx = 0;
    int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) reduction(max : mx) if (e - b > kBitpackParallelMin) schedule(static)
    for (int64_t c = 0; c < nc; ++c) {
      const int64_t rb = b + c * kRun;
      float m1;
      int64_t b1;
      sumsq_run(x, rb, std::min(e, rb + kRun), l2, &chunk_ss[static_cast<size_t>(c)], &m1, &b1);
      mx = std::max(mx, m1);
      bad += b1;
    }
    double ss = 0;
    for (double c : chunk_ss) ss += c;
    if (bad || !std::isfinite(ss)) scale[k] = std::numeric_limits<float>::quiet_NaN();
    else scale[k] = l2 ? static_cast<float>(std::sqrt(ss)) : mx;
  }
}

// Levels of segments [k0, k1): width 8/16 straight into the words, 2/4 as one byte per
// element into `codes` (indexed by element).
void levels_range(const float* x, const std::vector<int64_t>& seg, size_t k0, size_t k1,
                  const float* scale, int64_t s, int width, uint64_t key, uint32_t* words,
                  uint8_t* codes) {
  const uint32_t shift = static_cast<uint32_t>(width - 1), su = static_cast<uint32_t>(s);
  auto inv_of = [&](int64_t k) {
    return scale[k] > 0 && std::isfinite(scale[k]) ? static_cast<float>(s) / scale[k] : 0.0f;
  };
  for_segment_blocks(seg, k0, k1, [&](int64_t b, int64_t e, int64_t k) {
    if (std::isinf(inv_of(k))) {  // tiny (subnormal) scale: s / scale overflows float
      uint8_t* c8 = width == 8 ? reinterpret_cast<uint8_t*>(words) : codes;
      if (width == 16) levels_tiny(x, b, e, scale[k], su, shift, key, reinterpret_cast<uint16_t*>(words));
      else levels_tiny(x, b, e, scale[k], su, shift, key, c8);
      return;
    }
    if (width == 8 || width == 16) {
      if (!std::isfinite(scale[k])) {  // non-finite input: codes unused (decode gives NaN)
        std::fill(reinterpret_cast<uint8_t*>(words) + b * (width / 8),
                  reinterpret_cast<uint8_t*>(words) + e * (width / 8), uint8_t{0});
      } else if (width == 8)
        levels_u8(x, b, e, inv_of(k), su, shift, key, reinterpret_cast<uint8_t*>(words));
      else
        levels_u16(x, b, e, inv_of(k), su, shift, key, reinterpret_cast<uint16_t*>(words));
    } else {
      if (!std::isfinite(scale[k])) std::fill(codes + b, codes + e, uint8_t{0});
      else levels_u8(x, b, e, inv_of(k), su, shift, key, codes);
    }
  });
}

// Packs the 2/4-bit codes of words [wb, we) (the last, partial word included when we is
// code_words(n)); codes of elements >= n count as 0.
void pack_codes(const uint8_t* codes, int64_t n, int width, int64_t wb, int64_t we, uint32_t* words) {
  const int per = 32 / width;
  const int64_t full = std::min(we, n / per);
  constexpr int64_t kWords = 4096;
  if (full > wb) {
    const int64_t nchunks = (full - wb + kWords - 1) / kWords;
#pragma omp parallel for if ((full - wb) * per > kBitpackParallelMin) schedule(static)
    for (int64_t c = 0; c < nchunks; ++c) {
      const int64_t b = wb + c * kWords, e = std::min(full, b + kWords);
      if (width == 2) pack_w2(codes, b, e, words);
      else pack_w4(codes, b, e, words);
    }
  }
  if (we > full && full * per < n) {  // last, partial word
    uint32_t word = 0;
    for (int64_t i = full * per; i < n; ++i) word |= static_cast<uint32_t>(codes[i]) << ((i - full * per) * width);
    words[full] = word;
  }
}

void zero_unused_codes(int64_t n, int width, uint32_t* words) {
  if (width != 8 && width != 16) return;  // the packers write whole words
  const int64_t per = 32 / width, nw = code_words(n, width);
  for (int64_t i = n; i < nw * per; ++i) {
    if (width == 8) reinterpret_cast<uint8_t*>(words)[i] = 0;
    else reinterpret_cast<uint16_t*>(words)[i] = 0;
  }
}

// The calling thread's scratch of one byte per element (2/4-bit codes). OpenMP workers
// must use the returned pointer, never their own (empty) thread_local vector.
uint8_t* code_scratch(int64_t n) {
  thread_local std::vector<uint8_t> scratch;
  scratch.resize(static_cast<size_t>(n));
  return scratch.data();
}

constexpr int64_t kGroup = int64_t{1} << 20;  // elements per segment group of encode_segments (4 MB)
}  // namespace

void segment_scales(const float* x, const std::vector<int64_t>& seg, bool l2, float* scale) {
  scales_range(x, seg, 0, seg.size() - 1, l2, scale);
}

void encode_levels(const float* x, const std::vector<int64_t>& seg, const float* scale,
                   int64_t s, int width, uint64_t key, uint32_t* words) {
  const int64_t n = seg.back();
  if (n == 0) return;
  uint8_t* const codes = (width == 8 || width == 16) ? nullptr : code_scratch(n);
  levels_range(x, seg, 0, seg.size() - 1, scale, s, width, key, words, codes);
  if (codes) pack_codes(codes, n, width, 0, code_words(n, width), words);
  zero_unused_codes(n, width, words);
}

void encode_segments(const float* x, const std::vector<int64_t>& seg, bool l2, int64_t s,
                     int width, uint64_t key, float* scale, uint32_t* words) {
  const int64_t n = seg.back();
  if (n == 0) return;
  const size_t S = seg.size() - 1;
  uint8_t* const codes = (width == 8 || width == 16) ? nullptr : code_scratch(n);
  const int64_t per = 32 / width, nw = code_words(n, width);
  int64_t packed = 0;  // words already packed (2/4 bits)
  for (size_t k0 = 0, k1; k0 < S; k0 = k1) {
    k1 = k0 + 1;
    while (k1 < S && seg[k1 + 1] - seg[k0] <= kGroup) ++k1;
    scales_range(x, seg, k0, k1, l2, scale);
    levels_range(x, seg, k0, k1, scale, s, width, key, words, codes);
    if (codes) {
      const int64_t upto = k1 == S ? nw : seg[k1] / per;  // words whose codes are all known
      pack_codes(codes, n, width, packed, upto, words);
      packed = std::max(packed, upto);
    }
  }
  zero_unused_codes(n, width, words);
}

void decode_levels(const uint32_t* words, const std::vector<int64_t>& seg, const float* scale,
                   int64_t s, int width, float factor, bool accumulate, float* out) {
  const int64_t n = seg.back();
  if (n == 0) return;
  const uint32_t shift = static_cast<uint32_t>(width - 1);
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(words);
  // Elements [b, e) of segment k into dst[b - off, e - off), b - off >= 0; the code
  // pointer is moved by off elements (off a multiple of 8: whole bytes at any width).
  auto run = [&](int64_t b, int64_t e, int64_t k, int64_t off, bool acc, float* dst) {
    const float mult = factor * scale[k] / static_cast<float>(s);
    const uint8_t* c = bytes + off * width / 8;
    if (width == 8)
      unlevels_u8(c, b - off, e - off, mult, shift, acc, dst);
    else if (width == 16)
      unlevels_u16(reinterpret_cast<const uint16_t*>(c), b - off, e - off, mult, shift, acc, dst);
    else if (width == 4)
      unlevels_w4(c, b - off, e - off, mult, acc, dst);
    else
      unlevels_w2(c, b - off, e - off, mult, acc, dst);
  };
#ifdef GCU_HAVE_X86
  if (!accumulate && width == 8 && n >= kStreamMin && have_avx2()) {
    for_segment_blocks(seg, [&](int64_t b, int64_t e, int64_t k) {
      unlevels8_stream_avx2(bytes, b, e, factor * scale[k] / static_cast<float>(s), out);
    });
    return;
  }
#endif
  for_segment_blocks(seg, [&](int64_t b, int64_t e, int64_t k) { run(b, e, k, 0, accumulate, out); });
}

}  // namespace gcu::compress::bits
