// "signsgd": signSGD with majority vote (Bernstein et al. 2018). Each rank sends the sign
// bits of its gradient; the result on every rank is the element-wise majority vote,
// optionally scaled to gradient magnitude. Biased, stateless; decode is O(p n).
//
// Parameters: scaled=<bool, default true>. With scaled=true the vote is multiplied by the
//   mean over ranks of each rank's mean |g| (so the result has the gradient's scale and can
//   replace it at the same learning rate); with scaled=false the result is +-1 (0 on ties).
//
// Wire format (one all-gather per bucket, U64 words, count = ceil(n/64) + 1 per rank):
//   words[0, ceil(n/64)) : sign bits, element i -> bit i%64 of word i/64, bit = IEEE sign bit
//                          of g_i (so +0 -> positive, -0 -> negative); unused bits 0.
//   words[ceil(n/64)]    : low 32 bits = float bits of this rank's scale, mean |g_i| over
//                          the bucket (NaN when g holds NaN/Inf); high 32 bits 0.
// The scale word is sent even with scaled=false: it carries the non-finite flag.
// Decode: c_i = number of ranks with bit set; result_i = -S if 2c_i > p, +S if 2c_i < p,
//   0 on a tie (even p), where S = mean over ranks of the scales (scaled) or 1.
// Non-finite input on any rank: every element of the result is NaN on every rank.
// n == 0: no collective.
#pragma once

#include "registry.h"

#include <vector>

namespace gcu::compress {

class SignSgdCompressor final : public Compressor {
 public:
  explicit SignSgdCompressor(bool scaled) : scaled_(scaled) {}
  std::string spec() const override;
  SchemeTraits traits() const override { return {true, false, false}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  // Encodes once; `local` gets this rank's own sign * own scale (+-1 when unscaled).
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;

 private:
  // Packs x into send_ (sign words + scale word).
  void encode(const float* x, int64_t n);
  void decode(const uint64_t* all, int p, int64_t n, float* out) const;
  bool scaled_;
  std::vector<uint64_t> send_, recv_;
};

void register_signsgd(Registry& r);

}  // namespace gcu::compress
