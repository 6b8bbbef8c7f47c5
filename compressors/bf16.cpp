// "bf16" on the CPU (bf16.h).
#include "bf16.h"

#include "low_precision.h"

namespace gcu::compress {

std::vector<CollectiveCall> Bf16Compressor::plan(const BucketLayout& layout, int) const {
  if (layout.numel() == 0) return {};
  return {{CollectiveKind::AllReduce, WireType::BF16, layout.numel(), "values"}};
}

void Bf16Compressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void Bf16Compressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  const int p = comm.world_size();
  wire_.resize(n);
  lowp::to_bf16(b.data, wire_.data(), n, 1.0f / static_cast<float>(p));
  if (local) lowp::from_bf16(wire_.data(), local, n, static_cast<float>(p));
  comm.all_reduce(wire_.data(), n, WireType::BF16, ReduceOp::Sum);
  lowp::from_bf16(wire_.data(), b.data, n, 1.0f);
}

void Bf16Compressor::roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) {
  const int64_t n = layout.numel();
  wire_.resize(n);
  lowp::to_bf16(in, wire_.data(), n, 1.0f);
  lowp::from_bf16(wire_.data(), out, n, 1.0f);
}

void register_bf16(Registry& r) {
  r.add({.name = "bf16",
         .params = "",
         .summary = "cast to bf16, one all-reduce (sum in float, rounded once), 2 bytes/element",
         .cpu = [](const SchemeArgs&) { return std::make_unique<Bf16Compressor>(); },
         .facts = {.overlaps_backward = true, .negligible_error = true, .recommend_grid = {"bf16"}}});
}

}  // namespace gcu::compress
