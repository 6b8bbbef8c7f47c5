// "mstopk:k=<fraction>,iters=<N>": top-k whose threshold is found by the MSTopK binary
// search on magnitudes (Shi et al., "Towards Scalable Distributed Training of Deep
// Learning on Public Cloud Clusters", MLSys 2021, Alg. 1) instead of an exact selection;
// all-gather of values + indices with exactly K = kept_count(n, k) pairs, so the wire size
// is deterministic. Biased (use with ef()); stateless.
//
// Selection (CPU and CUDA identical up to the float rounding of `mean`):
//   a_i = |x_i|; u = max_i a_i; mean = min(u, float(sum_i a_i in double / n)).
//   If some x_i is NaN or Inf: exact top-K (sparse::select_topk; NaN/Inf selected first).
//   l = 0, r = 1 (floats); k1 = 0, thr1 = +Inf; k2 = n, thr2 = 0.
//   repeat N times: ratio = l + (r - l) / 2;  thr = mean + ratio * (u - mean)  (float ops)
//                   nnz = #{i : a_i >= thr}
//                   if nnz <= K: r = ratio; if nnz > k1: k1 = nnz, thr1 = thr
//                   else:        l = ratio; if nnz < k2: k2 = nnz, thr2 = thr
//   Set1 = {i : a_i >= thr1} (k1 <= K elements; empty while thr1 = +Inf).
//   Band = {i : thr2 <= a_i < thr1}; the paper samples K - k1 of it at random; gcu takes
//   the FIRST K - k1 by index (deterministic, so CPU and CUDA agree). |Band| >= K - k1.
//   Selected = Set1 + those, in ascending index order (the topk wire format):
//   1. all-gather F32, count K, "values";  2. all-gather I32, count K, "indices".
//   wire_bytes = 8 K per rank. n = 0: no collective. Decode as topk (scatter-add / p).
// The CPU version counts on the whole buffer while the search interval holds more than
// n/16 elements, then on a compacted candidate list (same result: thresholds are
// monotone in ratio, so later ones stay inside the interval).
#pragma once

#include "registry.h"

namespace gcu::compress {

class MstopkCompressor final : public Compressor {
 public:
  static constexpr int64_t kMaxIters = 64;
  MstopkCompressor(double k, int64_t iters) : k_(k), iters_(iters) {}
  std::string spec() const override;
  SchemeTraits traits() const override { return {true, false, false}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  // The selection described above: K pairs in ascending index order.
  void select(const float* x, int64_t n, float* values, int32_t* indices) const;

 private:
  double k_;
  int64_t iters_;
  std::vector<float> values_;
  std::vector<int32_t> indices_;
};

void register_mstopk(Registry& r);

}  // namespace gcu::compress
