// Shared by "fp16" and "bf16" (fp16.h, bf16.h, wire formats documented there): the bucket
// cast to one 16-bit float format (Cast16Format) and all-reduced. Stateless.
#pragma once

#include "registry.h"

namespace gcu::compress {

// One 16-bit format: the scheme's spec, its wire type and its conversions (low_precision.h).
struct Cast16Format {
  const char* spec;
  WireType wire;
  void (*encode)(const float* src, uint16_t* dst, int64_t n, float scale);
  void (*decode)(const uint16_t* src, float* dst, int64_t n, float scale);
};

class Cast16Compressor final : public Compressor {
 public:
  explicit Cast16Compressor(const Cast16Format& format) : f_(format) {}
  std::string spec() const override { return f_.spec; }
  SchemeTraits traits() const override { return {true, false, false}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void step_with_local(GradBucket bucket, Communicator& comm, float* local) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;

 private:
  Cast16Format f_;
  std::vector<uint16_t> wire_;
};

// Registers format f's scheme under f.spec with these facts (bf16.cpp, fp16.cpp).
void register_cast16(Registry& r, const Cast16Format& f, SchemeFacts facts);

}  // namespace gcu::compress
