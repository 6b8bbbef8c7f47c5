// Error feedback (residual memory) around any scheme: "ef(<inner spec>)", e.g.
// "ef(topk:k=0.01)". Per bucket b, with residual e_b (zero at first):
//   x     = g + e_b                (compensate; float addition)
//   c     = C(x)                   (this rank's own decompressed contribution: what the inner
//                                   scheme really sends, from Compressor::step_with_local)
//   e_b  <- x - c                  (so x = c + e_b: for sparsifiers exactly, bit for bit)
//   bucket <- average over ranks of the inner scheme's decoded result
// roundtrip() does the same without communication (x -> c, residual updated): the error
// measurement (error_measure.h) and the trainer's local checks use it.
// The residuals are the state: save_state() holds every bucket's residual and the inner
// scheme's state, so a checkpoint resumes bit for bit. Residual sizes are checked: a
// bucket whose size changed is a CompressorError naming the bucket. CPU buffers only.
// efsignsgd (scaled sign with built-in error feedback) is its own scheme: don't wrap it.
#pragma once

#include "registry.h"

#include <map>
#include <memory>

namespace gcu::compress {

class ErrorFeedback final : public Compressor {
 public:
  explicit ErrorFeedback(std::unique_ptr<Compressor> inner);
  std::string spec() const override { return "ef(" + inner_->spec() + ")"; }
  Device device() const override { return inner_->device(); }
  SchemeTraits traits() const override;
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override {
    return inner_->plan(layout, world);
  }
  void step(GradBucket bucket, Communicator& comm) override { step_with_local(bucket, comm, nullptr); }
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  std::vector<uint8_t> save_state() const override;
  void load_state(const std::vector<uint8_t>& state) override;

  const Compressor& inner() const { return *inner_; }
  // The residual of a bucket (empty if the bucket was never seen).
  const std::vector<float>& residual(int64_t bucket_index) const;

 private:
  std::vector<float>& residual_for(int64_t bucket_index, int64_t n);
  std::unique_ptr<Compressor> inner_;
  std::map<int64_t, std::vector<float>> residuals_;
  std::vector<float> local_;
};

// "ef(x)" -> "x"; returns false when spec is not of that form.
bool parse_ef_spec(const std::string& spec, std::string* inner);

// Deepest ef(ef(...)) accepted: a deeper spec (tens of thousands of "ef(" overflowed the
// stack of the recursive parser) throws CompressorError. O(length), no copies.
inline constexpr int kMaxEfNesting = 4;
void check_ef_nesting(const std::string& spec);

}  // namespace gcu::compress
