// "thc": THC-style homomorphic quantization (Li et al., NSDI'24): every rank rotates its
// gradient with the SAME randomized Hadamard transform, quantizes it stochastically to a
// small integer grid on a SHARED scale, and the integers are summed by an all-reduce
// (no decode of p payloads), then dequantized and rotated back. Unbiased unless
// saturation clips; stateless (streams keyed by a per-bucket step counter).
//
// Parameters: bits=<b in [1, 16], default 4>, sat=<saturation threshold in RMS units,
//   default 0 = off>, rot=<full | t = number of butterfly stages, default full>,
//   block=<power of two >= 2, default 65536>, seed=<default 0>.
//
// Algorithm for a bucket of n > 0 floats on p ranks (CUDA must follow it exactly):
//  1. Blocks: L = next power of two >= n if n <= block, else L = block; B = ceil(n / L)
//     blocks, m = B L; x is zero-padded to m. Stages t = min(rot, log2 L) (full: log2 L).
//  2. Rotation: y = H_t D x (y = x when t = 0: no sign flips without a rotation),
//     D_j = -1 if (rng::bits32(kr, j) >> 31) else +1, with
//     kr = rng::stream_key(seed, bucket index, step counter, 0xffffffffffffffff) (the
//     same on every rank); H_t = the first t unnormalized butterfly stages (hadamard.h).
//  3. Range: r = max_j |y_j|; with sat > 0, r = min(r, sat * sqrt(sum_j y_j^2 / m)) (sum
//     of float partial sums over runs of 1024 elements, accumulated in double). r = +Inf when y has NaN/Inf. All-reduce (Max, F32, 1 element) -> R.
//  4. Grid: G = 2^b - 1; q_j = min(G, floor((clamp(y_j, -R, R) + R) * (G / (2R)) + u_j))
//     with u_j = rng::uniform(kq, j), kq = stream_key(seed, bucket, step, rank); in float:
//     inv = float(G) / (2 * R); q = (yc + R) * inv + u. q_j = 0 everywhere when R == 0.
//  5. Lanes: the p-rank sum of a q is at most p G, so each q gets a lane of
//     w = bit_width(p G) bits (never overflows, whatever the inputs); k = floor(64 / w)
//     lanes per U64 word; element j -> word j / k, bits [w (j % k), +w). All-reduce
//     (Sum, U64, ceil(m / k) words). E.g. b = 4: p = 1 -> 4-bit lanes, p = 4 -> 6 bits,
//     p = 16 -> 8 bits, p = 64 -> 10 bits.
//  6. Decode: S_j = lane j of the summed words; z_j = -R + (float(S_j) / float(p)) *
//     (2 R / float(G)); x' = 2^-t D H_t z (exact power-of-two scale; x' = z when t = 0);
//     first n elements.
// Wire bytes per rank: 4 + 8 ceil(m / k). Non-finite input on any rank: R = +Inf and
// every element of the result is NaN on every rank. n == 0: no collective.
#pragma once

#include "registry.h"

#include <map>
#include <vector>

namespace gcu::compress {

struct ThcParams {
  int bits = 4;
  double sat = 0.0;
  int rot = -1;  // -1 = full
  int64_t block = 65536;
  uint64_t seed = 0;
};

// Bucket geometry of steps 1 and 5 (exposed for tests and the CUDA version).
struct ThcGeometry {
  int64_t L = 0, m = 0;  // block length, padded length
  int stages = 0;
  int lane_bits = 0, lanes_per_word = 0;
  int64_t words = 0;
  static ThcGeometry of(const ThcParams& prm, int64_t n, int world);
};

class ThcCompressor final : public Compressor {
 public:
  explicit ThcCompressor(ThcParams p);
  std::string spec() const override;
  SchemeTraits traits() const override { return {prm_.sat > 0, false, false}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;

 private:
  // Steps 1-3 (local range); points src_ at y (y_, or x itself when t = 0); returns r.
  float rotate(const float* x, int64_t n, const ThcGeometry& g, uint64_t kr);
  // Step 4-5: quantize src_ with range R into words (lanes per g).
  void quantize(float R, const ThcGeometry& g, int64_t n, uint64_t kq, uint64_t* words) const;
  // Step 6 with divisor p: words -> out (n floats).
  void decode(const uint64_t* words, float R, int p, const ThcGeometry& g, uint64_t kr,
              int64_t n, float* out);
  void run(GradBucket b, Communicator* comm, float* local, float* out);
  ThcParams prm_;
  std::vector<float> y_;
  std::vector<double> chunk_ss_;  // rotate(): sums of squares per chunk (sumsq.h order)
  const float* src_ = nullptr;
  std::vector<uint64_t> words_, own_;
  std::map<int64_t, uint64_t> counter_;
};

void register_thc(Registry& r);

}  // namespace gcu::compress
