// "topkc:k=<fraction of chunks>,chunk=<elements>": chunked top-k with all-reduce. The bucket
// is cut into m = ceil(n / chunk) chunks (the last may be partial); all ranks agree on the
// same C = kept_count(m, k) chunks (largest summed squared norm), and only those chunks'
// values are all-reduced: no per-value indices, and the sum is a real all-reduce. Biased
// (use with ef()); stateless.
//
// Wire format (CPU and CUDA identical), bucket of n floats, p ranks:
//   if C < m:
//     1. all-reduce F32, count m, "chunk norms": s[c] = sum_{i in chunk c} x[i]^2, summed in
//        double over the chunk in index order, rounded to float; the Communicator sums over
//        ranks. Chosen chunks = the C largest summed norms by sparse::mag_key (NaN first),
//        ties toward the lower chunk index (every rank sees the same sums: same choice).
//     2. all-reduce F32, count P = min(C * chunk, n), "chunk values": the chosen chunks'
//        values concatenated in ascending chunk order; when the partial last chunk is chosen
//        it comes last and the payload is padded with zeros up to P.
//   if C == m (every chunk kept, e.g. k = 1 or n <= chunk): only message 2 (P = n): the
//     norms would decide nothing.
//   wire_bytes = 4 (m + P) per rank if C < m, else 4 n. n = 0: no collective.
// Decode: out = 0 outside the chosen chunks; inside, out = (sum over ranks) * (1.0f / p).
// roundtrip(x) (one rank): x on the C chunks of largest own norm, 0 elsewhere.
// step_with_local's local output: x on the AGREED chunks (what this rank really sent).
// NaN/Inf: propagate (a NaN norm makes its chunk chosen first on every rank).
#pragma once

#include "registry.h"

namespace gcu::compress {

class TopkcCompressor final : public Compressor {
 public:
  TopkcCompressor(double k, int64_t chunk) : k_(k), chunk_(chunk) {}
  std::string spec() const override;
  SchemeTraits traits() const override { return {true, false, false}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;

 private:
  void chunk_norms(const float* x, int64_t n);    // -> norms_
  void choose_chunks(int64_t n);                  // norms_ -> chosen_
  int64_t payload_count(int64_t n) const;
  double k_;
  int64_t chunk_;
  std::vector<float> norms_, scratch_;
  std::vector<int32_t> chosen_;
  std::vector<float> payload_;
};

void register_topkc(Registry& r);

}  // namespace gcu::compress
