// "none": the uncompressed FP32 baseline. One all-reduce of the bucket as it is.
// The smallest complete scheme: read it first when adding one.
#pragma once

#include "registry.h"

namespace gcu::compress {

class NoneCompressor final : public Compressor {
 public:
  std::string spec() const override { return "none"; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
};

void register_none(Registry& r);

}  // namespace gcu::compress
