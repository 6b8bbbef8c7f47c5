// DDP bucket assignment, the one rule gcu uses everywhere: the model's planner
// (plan_buckets, over a profile's tensors) and the trainer's Reducer
// (trainer/runtime/reducer.h, over a network's parameters) both call
// assign_ddp_buckets, so the model predicts the buckets the trainer reduces.
//
// The rule is PyTorch's compute_bucket_assignment_by_size as DDP applies it once it has
// seen the gradient-ready order (Reducer::rebuild_buckets): tensors in ready order
// (backward order: last layer first) are appended to the open bucket; the bucket closes
// as soon as its size reaches the limit, 1 MiB (_DEFAULT_FIRST_BUCKET_BYTES) for the
// first bucket and bucket_cap_bytes (25 MiB) after. A tensor at least as large as the
// cap is NOT isolated: it joins the open bucket and closes it, so it sits alone only
// when that bucket was empty. A 0-d (scalar) tensor is one element; tensors with a zero
// dimension add no bytes. PyTorch keeps one open bucket per (dtype, device); gcu's
// gradients are all FP32 on one device, so there is one.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include "compressors/compressor.h"

#include <cstdint>
#include <vector>

namespace gcu::model {

// One gradient tensor as DDP sizes it.
struct BucketTensor {
  int64_t numel = 0;
  int64_t element_bytes = 4;  // FP32
};

// The rule above over `ready_order` (tensors in gradient-ready order). Returns each
// bucket's members as positions in ready_order, buckets in the order they fill (the
// order their collectives run). Throws ModelError for a limit <= 0 or a negative size.
std::vector<std::vector<int>> assign_ddp_buckets(const std::vector<BucketTensor>& ready_order,
                                                 Bytes first_bucket_bytes, Bytes bucket_cap_bytes);

// The shape a bucket layout (compress::BucketLayout) holds for a gradient of `shape`:
// the shape itself, or {1} for a 0-d tensor (one element, seen as a 1-D tensor).
std::vector<int64_t> bucket_shape(const std::vector<int64_t>& shape);

struct Bucket {
  std::vector<int> tensors;          // indices into Model::tensors, backward order
  compress::BucketLayout layout;     // their bucket_shape()s, in bucket order (for plan())
  int64_t numel = 0;
  Bytes bytes = 0;                   // numel * element_bytes
};

struct BucketOptions {
  Bytes first_bucket_bytes = 1 * kMiB;
  Bytes bucket_cap_bytes = 25 * kMiB;
  Bytes element_bytes = kFp32Bytes;  // gradient dtype: FP32
  static BucketOptions from(const DdpConfig& d) { return {d.first_bucket_bytes, d.bucket_cap_bytes}; }
};

// assign_ddp_buckets over a profile's tensors (Model::tensors, backward order). Throws
// ModelError for non-positive caps or a tensor with a non-positive dimension (a profile
// names its tensors' real shapes).
std::vector<Bucket> plan_buckets(const std::vector<TensorInfo>& tensors,
                                 const BucketOptions& opt = {});

}  // namespace gcu::model
