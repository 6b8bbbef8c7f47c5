// "none" on the CPU (none.h).
#include "none.h"

#include <algorithm>

namespace gcu::compress {

std::vector<CollectiveCall> NoneCompressor::plan(const BucketLayout& layout, int) const {
  return {{CollectiveKind::AllReduce, WireType::F32, layout.numel(), "values"}};
}

void NoneCompressor::step(GradBucket b, Communicator& comm) {
  const int64_t n = b.numel();
  comm.all_reduce(b.data, n, WireType::F32, ReduceOp::Sum);
  const float inv = 1.0f / static_cast<float>(comm.world_size());
  for (int64_t i = 0; i < n; ++i) b.data[i] *= inv;
}

void NoneCompressor::roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) {
  std::copy(in, in + layout.numel(), out);
}

void register_none(Registry& r) {
  r.add({.name = "none",
         .params = "",
         .summary = "uncompressed FP32 baseline; one all-reduce",
         .cpu = [](const SchemeArgs&) { return std::make_unique<NoneCompressor>(); },
         .facts = {.lossless = true, .baseline = Baseline::FP32, .label = "FP32 DDP",
                    .recommend_grid = {"none"},
                    // none.cu: step() all-reduces in place, then scale_inplace reads and
                    // writes 4 B per element; roundtrip() is one device copy (the same bytes).
                    .gpu_work = [](const SchemeArgs&, const BucketLayout& l, int) {
                      return CodecWork{.decode = elementwise_work(l.numel(), 4, 4)};
                    }}});
}

}  // namespace gcu::compress
