// DDP bucket planner (buckets.h), after PyTorch's compute_bucket_assignment_by_size.
#include "model/buckets.h"

namespace gcu::model {

std::vector<Bucket> plan_buckets(const std::vector<TensorInfo>& tensors, const BucketOptions& opt) {
  if (!(opt.first_bucket_bytes > 0))
    throw ModelError("ddp.first_bucket_bytes = " + std::to_string(opt.first_bucket_bytes) + " must be > 0");
  if (!(opt.bucket_cap_bytes > 0))
    throw ModelError("ddp.bucket_cap_bytes = " + std::to_string(opt.bucket_cap_bytes) + " must be > 0");
  std::vector<Bucket> out;
  Bucket cur;
  Bytes limit = opt.first_bucket_bytes;
  auto close = [&] {
    out.push_back(std::move(cur));
    cur = Bucket{};
    limit = opt.bucket_cap_bytes;
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    for (int64_t d : t.shape)
      if (d < 1)
        throw ModelError("model.tensors[" + std::to_string(i) + "] '" + t.name + "' has dimension " +
                         std::to_string(d) + " (must be >= 1)");
    const int64_t n = t.numel();
    const Bytes b = double(n) * opt.element_bytes;
    if (opt.isolate_oversized && b >= opt.bucket_cap_bytes && !cur.tensors.empty()) close();
    cur.tensors.push_back(int(i));
    cur.layout.shapes.push_back(t.shape.empty() ? std::vector<int64_t>{1} : t.shape);
    cur.numel += n;
    cur.bytes += b;
    if (cur.bytes >= limit) close();
  }
  if (!cur.tensors.empty()) out.push_back(std::move(cur));
  return out;
}

}  // namespace gcu::model
