// The cast-and-all-reduce compressor of "fp16" and "bf16" on the CPU (cast16.h).
#include "cast16.h"

#include <string>
#include <utility>

namespace gcu::compress {

std::vector<CollectiveCall> Cast16Compressor::plan(const BucketLayout& layout, int) const {
  if (layout.numel() == 0) return {};
  return {{CollectiveKind::AllReduce, f_.wire, layout.numel(), "values"}};
}

void Cast16Compressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void Cast16Compressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  const int p = comm.world_size();
  wire_.resize(n);
  f_.encode(b.data, wire_.data(), n, 1.0f / static_cast<float>(p));
  if (local) f_.decode(wire_.data(), local, n, static_cast<float>(p));
  comm.all_reduce(wire_.data(), n, f_.wire, ReduceOp::Sum);
  f_.decode(wire_.data(), b.data, n, 1.0f);
}

void Cast16Compressor::roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) {
  const int64_t n = layout.numel();
  wire_.resize(n);
  f_.encode(in, wire_.data(), n, 1.0f);
  f_.decode(wire_.data(), out, n, 1.0f);
}

void register_cast16(Registry& r, const Cast16Format& f, SchemeFacts facts) {
  // cuda/cast16.cu: encode_kernel reads 4 B and writes 2 B per element, decode_kernel the
  // reverse; one launch each.
  facts.gpu_work = [](const SchemeArgs&, const BucketLayout& l, int) {
    return CodecWork{.encode = elementwise_work(l.numel(), 4, 2), .decode = elementwise_work(l.numel(), 2, 4)};
  };
  r.add({.name = f.spec,
         .params = "",
         .summary = std::string("cast to ") + f.spec +
                    ", one all-reduce (sum in float, rounded once), 2 bytes/element",
         .cpu = [f](const SchemeArgs&) { return std::make_unique<Cast16Compressor>(f); },
         .facts = std::move(facts)});
}

}  // namespace gcu::compress
