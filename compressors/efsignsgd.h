// "efsignsgd": scaled sign with built-in error feedback (EF-SignSGD, Karimireddy et al.
// 2019). Per bucket and rank: q = g + e; C(q) = (||q||_1 / n) * sign(q); e <- q - C(q).
// The result is the average over ranks of the C(q_r). Biased, stateful (residuals).
//
// Parameters: none.
// Wire format: identical to signsgd (signsgd.h): one all-gather of ceil(n/64) + 1 U64
//   words per rank: sign bits of q (IEEE sign bit, bit i%64 of word i/64), then one word
//   whose low 32 bits are the float bits of scale = ||q||_1 / n (NaN when q has NaN/Inf).
// Decode: result_i = (1/p) sum_r scale_r * (bit_r(i) ? -1 : +1); O(p n).
// State: one residual vector per bucket index (created as zeros on first use; a bucket
//   index whose size changes is an error). save_state() writes all residuals.
// Non-finite input on any rank: the result is all NaN on every rank and the residual of
//   every rank is reset to zeros (so one bad step does not poison the following ones).
// n == 0: no collective.
#pragma once

#include "registry.h"

#include <map>
#include <vector>

namespace gcu::compress {

class EfSignSgdCompressor final : public Compressor {
 public:
  std::string spec() const override { return "efsignsgd"; }
  SchemeTraits traits() const override { return {true, true, true}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  std::vector<uint8_t> save_state() const override;
  void load_state(const std::vector<uint8_t>& state) override;

 private:
  // q = g + e into the residual, packs q into send_; returns the residual.
  std::vector<float>& encode(int64_t bucket_index, const float* g, int64_t n);
  // e <- q - scale * sign(q) (zeros when the scale is not finite).
  void update_residual(std::vector<float>& e) const;
  std::map<int64_t, std::vector<float>> residual_;
  std::vector<uint64_t> send_, recv_;
};

void register_efsignsgd(Registry& r);

}  // namespace gcu::compress
