// "fp16" on the CPU (fp16.h).
#include "fp16.h"

#include "low_precision.h"

namespace gcu::compress {

std::vector<CollectiveCall> Fp16Compressor::plan(const BucketLayout& layout, int) const {
  if (layout.numel() == 0) return {};
  return {{CollectiveKind::AllReduce, WireType::F16, layout.numel(), "values"}};
}

void Fp16Compressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void Fp16Compressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  const int p = comm.world_size();
  wire_.resize(n);
  lowp::to_half(b.data, wire_.data(), n, 1.0f / static_cast<float>(p));
  if (local) lowp::from_half(wire_.data(), local, n, static_cast<float>(p));
  comm.all_reduce(wire_.data(), n, WireType::F16, ReduceOp::Sum);
  lowp::from_half(wire_.data(), b.data, n, 1.0f);
}

void Fp16Compressor::roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) {
  const int64_t n = layout.numel();
  wire_.resize(n);
  lowp::to_half(in, wire_.data(), n, 1.0f);
  lowp::from_half(wire_.data(), out, n, 1.0f);
}

void register_fp16(Registry& r) {
  r.add({.name = "fp16",
         .params = "",
         .summary = "cast to fp16, one all-reduce (sum in float, rounded once), 2 bytes/element",
         .cpu = [](const SchemeArgs&) { return std::make_unique<Fp16Compressor>(); },
         .facts = {.overlaps_backward = true, .negligible_error = true, .baseline = Baseline::FP16,
                    .label = "FP16 DDP", .recommend_grid = {"fp16"}}});
}

}  // namespace gcu::compress
