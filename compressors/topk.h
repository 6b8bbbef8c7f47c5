// "topk:k=<fraction>": keep the K largest-magnitude elements of the bucket, all-gather
// (value, index) pairs, decode by scatter-add / p. Biased; use with error feedback
// ("ef(topk:k=0.01)"). Stateless.
//
// Wire format (CPU and CUDA identical), bucket of n floats, p ranks, K = kept_count(n, k)
// (sparse.h: min(n, max(1, ceil(k n))) for n > 0, 0 for n = 0):
//   1. all-gather F32, count K, "values":  x[i_0], ..., x[i_{K-1}]
//   2. all-gather I32, count K, "indices": i_0 < i_1 < ... < i_{K-1} (ascending)
//   The selected set is the K largest by sparse::mag_key (|x| as sign-cleared bits; NaN
//   above Inf), ties at the threshold broken toward the lowest index: unique, so CPU
//   and CUDA send identical bytes.
//   wire_bytes = 8 K per rank. n = 0: no collective. n >= 2^31: CompressorError (before
//   any collective; depends only on the layout, so every rank throws).
// Decode: out = 0; for r in ranks, j < K: out[idx_r[j]] += val_r[j] * (1.0f / p), in rank
// order (the CUDA version may add in another order: equal within float rounding).
// roundtrip(x): x on the selected set, 0 elsewhere. NaN/Inf: selected first, propagate.
#pragma once

#include "registry.h"

namespace gcu::compress {

class TopkCompressor final : public Compressor {
 public:
  explicit TopkCompressor(double k) : k_(k) {}
  std::string spec() const override;
  SchemeTraits traits() const override { return {true, false, false}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  double k() const { return k_; }

 private:
  double k_;
  std::vector<float> values_;
  std::vector<int32_t> indices_;
};

void register_topk(Registry& r);

}  // namespace gcu::compress
