// DDP bucket assignment (buckets.h), after PyTorch's compute_bucket_assignment_by_size.
#include "model/buckets.h"

#include <string>

namespace gcu::model {

std::vector<std::vector<int>> assign_ddp_buckets(const std::vector<BucketTensor>& ready_order,
                                                 Bytes first_bucket_bytes, Bytes bucket_cap_bytes) {
  if (!(first_bucket_bytes > 0))
    throw ModelError("ddp.first_bucket_bytes = " + std::to_string(first_bucket_bytes) + " must be > 0");
  if (!(bucket_cap_bytes > 0))
    throw ModelError("ddp.bucket_cap_bytes = " + std::to_string(bucket_cap_bytes) + " must be > 0");
  std::vector<std::vector<int>> out;
  std::vector<int> open;
  int64_t open_bytes = 0;
  Bytes limit = first_bucket_bytes;
  for (size_t i = 0; i < ready_order.size(); ++i) {
    const auto& t = ready_order[i];
    if (t.numel < 0 || t.element_bytes < 1)
      throw ModelError("bucket tensor " + std::to_string(i) + ": numel " + std::to_string(t.numel) +
                       ", element bytes " + std::to_string(t.element_bytes) + " (must be >= 0 and >= 1)");
    open.push_back(static_cast<int>(i));
    open_bytes += t.numel * t.element_bytes;
    if (static_cast<Bytes>(open_bytes) >= limit) {
      out.push_back(std::move(open));
      open = {};
      open_bytes = 0;
      limit = bucket_cap_bytes;
    }
  }
  if (!open.empty()) out.push_back(std::move(open));
  return out;
}

std::vector<int64_t> bucket_shape(const std::vector<int64_t>& shape) {
  return shape.empty() ? std::vector<int64_t>{1} : shape;
}

std::vector<Bucket> plan_buckets(const std::vector<TensorInfo>& tensors, const BucketOptions& opt) {
  std::vector<BucketTensor> sizes;
  sizes.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    for (int64_t d : t.shape)
      if (d < 1)
        throw ModelError("model.tensors[" + std::to_string(i) + "] '" + t.name + "' has dimension " +
                         std::to_string(d) + " (must be >= 1)");
    sizes.push_back({t.numel(), static_cast<int64_t>(opt.element_bytes)});
  }
  std::vector<Bucket> out;
  for (auto& members : assign_ddp_buckets(sizes, opt.first_bucket_bytes, opt.bucket_cap_bytes)) {
    Bucket b;
    for (int i : members) {
      b.layout.shapes.push_back(bucket_shape(tensors[i].shape));
      b.numel += sizes[i].numel;
    }
    b.bytes = static_cast<Bytes>(b.numel * sizes.front().element_bytes);
    b.tensors = std::move(members);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace gcu::model
