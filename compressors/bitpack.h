// Bit-level kernels shared by the sign and quantization schemes (signsgd, efsignsgd,
// qsgd, terngrad): packing IEEE sign bits into 64-bit words, majority vote and weighted
// sums over p ranks' packed signs, and "sign + level" codes of 2, 4, 8 or 16 bits.
// The layouts here ARE the wire formats; the CUDA versions must produce the same words.
//
// Sign words (U64): element i -> bit (i % 64) of word (i / 64); bit = IEEE sign bit of the
//   float (so -0.0 and negative NaNs count as negative); unused bits of the last word are 0.
// Level codes (U32 words): width w in {2, 4, 8, 16} bits, 32/w codes per word, element i ->
//   bits [(i % (32/w)) * w, +w) of word i / (32/w) (little-endian, so for w = 8 and 16 the
//   words are simply a byte / uint16 array). Code = level | (sign << (w - 1)), level in
//   [0, 2^(w-1) - 1]; unused codes of the last word are 0.
// Segments: a bucket is cut into segments [begin[k], begin[k+1]) that each get one scale
//   (qsgd's norm, terngrad's max); see segments_for().
#pragma once

#include "compressor.h"

#include <cstdint>
#include <vector>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
// Compile a hot loop for x86-64-v3 (AVX2 + FMA) and for the baseline; the loader picks
// one at run time.
#define GCU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
// The same plus x86-64-v4 (AVX-512) for the integer-heavy elementwise kernels (bitpack,
// thc, hadamard: compiled with -ffp-contract=off or without multiply-adds, no reductions
// reordered), whose bytes are the same from every clone: checked by hashing the
// roundtrip outputs of every scheme built with no clones, v3 and v4 (docs/compressors.md
// "CPU speed"). Not PowerSGD: its streamed P Q^T repeats the v3 clone's FMA order.
#define GCU_CLONES_WIDE __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GCU_CLONES
#define GCU_CLONES_WIDE
#endif

namespace gcu::compress::bits {

constexpr int64_t sign_words(int64_t n) { return (n + 63) / 64; }

// Packs the sign bits of x[0, n) into sign_words(n) words; returns sum |x| in double
// (NaN/Inf in x make it non-finite: the schemes use that as their non-finite flag).
double pack_signs(const float* x, int64_t n, uint64_t* words);

// Majority vote over p ranks: rank r's words start at all + r * stride. Element i gets
// pos_value when fewer than half of the ranks have its sign bit set, neg_value when more
// than half do, tie_value on a tie.
void vote_signs(const uint64_t* all, int64_t stride, int p, int64_t n, float pos_value,
                float neg_value, float tie_value, float* out);

// out[i] = sum_r scale[r] * (bit_r(i) ? -1 : +1).
void sum_signs(const uint64_t* all, int64_t stride, int p, int64_t n, const float* scale,
               float* out);

// ---- sign + level codes ----------------------------------------------------------------
// Smallest width in {2, 4, 8, 16} holding levels 0..s plus a sign bit; throws above 32767.
int code_width(int64_t s);
constexpr int64_t code_words(int64_t n, int width) {
  const int64_t per = 32 / width;
  return (n + per - 1) / per;
}

// Segment starts: block == 0 -> one segment per tensor of the layout (empty tensors
// skipped); block > 0 -> consecutive blocks of `block` elements. Always ends with n.
std::vector<int64_t> segments_for(const BucketLayout& layout, int64_t block);

// One scale per segment: the L2 norm (l2 = true: the sum of squares in the order of
// sumsq.h, which the CUDA version repeats bit for bit; sqrt rounded to float) or max |x_i| (l2 = false); NaN for a segment holding NaN/Inf, +Inf if the norm
// overflows float (the schemes treat any non-finite scale as "result is NaN").
void segment_scales(const float* x, const std::vector<int64_t>& seg, bool l2, float* scale);

// Stochastic levels: level(i) = min(s, floor(|x_i| * s / scale_k + uniform(key, i))) for
// element i of segment k (level 0 when scale_k == 0), written as codes into `words`
// (code_words(n, width) words). `scale` has one entry per segment.
void encode_levels(const float* x, const std::vector<int64_t>& seg, const float* scale,
                   int64_t s, int width, uint64_t key, uint32_t* words);

// segment_scales() and encode_levels() in one call, segment group by segment group: the
// scales of a group of consecutive segments (about 4 MB of floats, or one larger segment)
// are computed just before its levels, so the second read of x mostly hits the cache.
// Same scales and words as the two calls.
void encode_segments(const float* x, const std::vector<int64_t>& seg, bool l2, int64_t s,
                     int width, uint64_t key, float* scale, uint32_t* words);

// out[i] (= when !accumulate, += when accumulate) factor * scale_k / s * (+-level(i)).
// Large outputs (n >= kStreamMin, !accumulate, 8-bit codes) use non-temporal stores.
void decode_levels(const uint32_t* words, const std::vector<int64_t>& seg, const float* scale,
                   int64_t s, int width, float factor, bool accumulate, float* out);

// ---- streaming stores -------------------------------------------------------------
// Outputs of at least kStreamMin floats are far larger than the caches: the decoders
// write them with non-temporal stores (no read-for-ownership of the destination; the
// values are the same as with plain stores).
constexpr int64_t kStreamMin = int64_t{1} << 22;  // floats (16 MB)

// Whether this CPU has AVX2 (the sign and level kernels pick their AVX2 versions by it).
bool have_avx2();

}  // namespace gcu::compress::bits
