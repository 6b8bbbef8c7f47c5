// "dgc:k=<fraction>,sample=<fraction>,seed=<int>": Deep Gradient Compression's selection
// (Lin et al., ICLR 2018): the threshold is the top-k threshold of a random sample of the
// magnitudes, then every element at or above it is selected; the payload has a fixed size
// K = kept_count(n, k) (all-gather of values + indices, the topk wire format). Biased.
// Implemented: sampled threshold selection with a fixed-size payload. Not implemented:
// DGC's momentum correction, local gradient clipping and warm-up (optimizer-side; DGC's
// local gradient accumulation is error feedback: use "ef(dgc:...)"). Stateful: per-bucket
// step counters of the sample stream (checkpointed).
//
// Selection (CPU and CUDA identical; rng.h functions), bucket b at its step t:
//   S = kept_count(n, sample); key = rng::stream_key(seed, b, t, 0x646763ULL)
//   sample j < S: element s_j = (uint64(rng::bits32(key, j)) * n) >> 32   (with replacement)
//   ks = kept_count(S, k); thr = the ks-th largest sparse::mag_key among the S samples.
//   Sel = {i : mag_key(x_i) >= thr}, c = |Sel|.
//   c >= K: the K largest of Sel (ties toward lower index): then exactly topk's selection.
//   c <  K: all of Sel, then padding pairs (value 0.0f, index 0) up to K.
//   Payload: selected pairs in ascending index order, padding last:
//   1. all-gather F32, count K, "values";  2. all-gather I32, count K, "indices".
//   wire_bytes = 8 K per rank. Decode as topk (scatter-add * 1/p; padding adds 0).
//   n = 0: no collective, counter unchanged. NaN/Inf: selected first, propagate.
#pragma once

#include "registry.h"

#include <map>

namespace gcu::compress {

class DgcCompressor final : public Compressor {
 public:
  DgcCompressor(double k, double sample, uint64_t seed) : k_(k), sample_(sample), seed_(seed) {}
  std::string spec() const override;
  SchemeTraits traits() const override { return {true, false, true}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  std::vector<uint8_t> save_state() const override;
  void load_state(const std::vector<uint8_t>& state) override;
  // The selection described above for bucket `bucket` at step `step`; returns c = |Sel|.
  int64_t select(const float* x, int64_t n, int64_t bucket, uint64_t step, float* values,
                 int32_t* indices);

 private:
  double k_, sample_;
  uint64_t seed_;
  std::map<int64_t, uint64_t> steps_;
  std::vector<float> values_, sel_v_;
  std::vector<int32_t> indices_, sel_i_, pos_;
};

void register_dgc(Registry& r);

}  // namespace gcu::compress
