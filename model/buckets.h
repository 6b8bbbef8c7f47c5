// DDP bucket planner: packs gradients, in backward order, into buckets the way PyTorch's
// Reducer does (compute_bucket_assignment_by_size): tensors are appended to the current
// bucket; the bucket closes as soon as its size reaches the limit (1 MiB for the first
// bucket, then bucket_cap_bytes = 25 MiB by default). So a tensor at least as large as the
// cap arriving on an empty bucket sits alone; with isolate_oversized it always does.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include "compressors/compressor.h"

#include <vector>

namespace gcu::model {

struct Bucket {
  std::vector<int> tensors;          // indices into Model::tensors, backward order
  compress::BucketLayout layout;     // their shapes, in bucket order (for plan())
  int64_t numel = 0;
  Bytes bytes = 0;                   // numel * element_bytes
};

struct BucketOptions {
  Bytes first_bucket_bytes = 1 * kMiB;
  Bytes bucket_cap_bytes = 25 * kMiB;
  Bytes element_bytes = kFp32Bytes;  // gradient dtype: FP32
  bool isolate_oversized = false;    // close the open bucket before a tensor >= the cap
  static BucketOptions from(const DdpConfig& d) { return {d.first_bucket_bytes, d.bucket_cap_bytes}; }
};

// Throws ModelError for non-positive caps or a tensor with a non-positive dimension.
std::vector<Bucket> plan_buckets(const std::vector<TensorInfo>& tensors,
                                 const BucketOptions& opt = {});

}  // namespace gcu::model
