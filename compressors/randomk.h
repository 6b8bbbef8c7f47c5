// "randomk:k=<fraction>,seed=<int>,unbiased=<bool>": K = kept_count(n, k) distinct random
// coordinates, the same on every rank (drawn from the shared seed, the bucket index and a
// per-bucket step counter), and one all-reduce of their values: no indices on the wire.
// Default unbiased=false: values are kept as they are (biased, meant for ef(), as in GRACE
// and the original study); unbiased=true scales by n / K so that E[C(x)] = x (variance
// factor w = n/K - 1). Stateful: the per-bucket step counters (checkpointed).
//
// Index definition (CPU and CUDA identical; rng.h functions): for bucket b at its step t
// (t = 0, 1, ... counts this compressor's step()/roundtrip() calls for bucket b),
//   key = rng::stream_key(seed, b, t, 0x72616e646bULL)          (same salt on all ranks)
//   h   = max(1, ceil(ceil_log2(n) / 2)),  mask = 2^h - 1,  domain 2^(2h) >= n
//   perm(v): 4 Feistel rounds on (L, R) = (v >> h, v & mask):
//            for r in 0..3: (L, R) = (R, L ^ (rng::bits32(key + r, R) & mask)); v = L << h | R
//   cyc(v) = perm(v), repeated while the result is >= n (cycle walking: a bijection of [0, n))
//   offset = rng::mix64(key) % n
//   idx_j  = (cyc(j) + offset) % n,  j = 0 .. K-1   (distinct; P(i selected) = K/n exactly)
// Wire: one all-reduce F32, count K, "values": v_j = x[idx_j] in j order. wire_bytes = 4 K.
// Decode: out = 0 elsewhere, out[idx_j] = sum_j * (scale / p), scale = n/K if unbiased else 1
// (computed as float(double(n) / K) / p in float). n = 0: no collective, counter unchanged.
// NaN/Inf propagate (when selected).
#pragma once

#include "registry.h"

#include <map>

namespace gcu::compress {

class RandomkCompressor final : public Compressor {
 public:
  RandomkCompressor(double k, uint64_t seed, bool unbiased) : k_(k), seed_(seed), unbiased_(unbiased) {}
  std::string spec() const override;
  SchemeTraits traits() const override { return {!unbiased_, false, true}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  std::vector<uint8_t> save_state() const override;
  void load_state(const std::vector<uint8_t>& state) override;

  // The K indices of bucket `bucket` at step `step` for n elements (documented above).
  std::vector<int32_t> indices(int64_t bucket, uint64_t step, int64_t n) const;
  // Scale applied to kept values: n/K (unbiased) or 1.
  float scale(int64_t n) const;

 private:
  double k_;
  uint64_t seed_;
  bool unbiased_;
  std::map<int64_t, uint64_t> steps_;  // bucket index -> next step number
  std::vector<float> values_;
};

void register_randomk(Registry& r);

}  // namespace gcu::compress
