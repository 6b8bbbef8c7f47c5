// "qsgd": QSGD stochastic quantization (Alistarh et al. 2017), and the shared machinery of
// "terngrad" (terngrad.h), which is the same code with s = 1 and a max-norm scale.
// Unbiased: E[C(x)] = x. Stateless (the random stream is keyed by a per-bucket step
// counter, which is not checkpointed).
//
// Parameters: levels=<s, default 127>, bucket=<elements per norm, default 0 = one norm per
//   tensor of the bucket layout>, seed=<default 0>.
// Encode, per segment k (one tensor, or `bucket` consecutive elements) with scale
//   N_k = ||x_k||_2: level_i = min(s, floor(|x_i| s / N_k + u_i)), u_i = rng::uniform(key, i),
//   key = rng::stream_key(seed, bucket index, step counter of that bucket, rank); i is the
//   element's index in the bucket. Level 0 everywhere when N_k = 0.
// Wire format (one all-gather per bucket, U32 words, per rank):
//   words[0, S)         : float bits of N_k, k = 0..S-1 (S segments, bitpack.h segments_for)
//   words[S, S + C)     : level codes, width w = smallest of {2,4,8,16} with s <= 2^(w-1)-1
//                         (levels=127 -> 8 bits), C = ceil(n / (32/w)); code = level |
//                         sign << (w-1), layout in bitpack.h.
//   count = S + C words.
// Decode: result_i = (1/p) sum_r N_{r,k} / s * (+-level_{r,i}); O(p n).
// Non-finite input on any rank (a NaN/Inf scale on the wire): the whole result is NaN.
// n == 0: no collective.
#pragma once

#include "registry.h"

#include <map>
#include <vector>

namespace gcu::compress {

class LevelCompressor : public Compressor {
 public:
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  SchemeTraits traits() const override { return {false, false, false}; }
  // Encodes once; `local` gets this rank's own decoded contribution (same random stream).
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;

 protected:
  LevelCompressor(bool l2, int64_t levels, int64_t bucket, uint64_t seed);
  bool l2_;
  int64_t levels_, bucket_;
  uint64_t seed_;
  int width_;

 private:
  // Encodes x into send_; returns the segments used.
  void encode(const float* x, const BucketLayout& layout, uint64_t key);
  void decode(const uint32_t* all, int p, float* out);
  uint64_t next_key(int64_t bucket_index, int rank);
  std::vector<int64_t> seg_;
  std::vector<uint32_t> send_, recv_;
  std::vector<float> scale_, dscale_;  // scratch: encode's and decode's scales
  std::map<int64_t, uint64_t> counter_;
};

class QsgdCompressor final : public LevelCompressor {
 public:
  QsgdCompressor(int64_t levels, int64_t bucket, uint64_t seed)
      : LevelCompressor(true, levels, bucket, seed) {}
  std::string spec() const override;
};

void register_qsgd(Registry& r);

}  // namespace gcu::compress
