// "topk" on the CPU (topk.h).
#include "topk.h"

#include "sparse.h"

namespace gcu::compress {

std::string TopkCompressor::spec() const { return "topk:k=" + format_param(k_); }

std::vector<CollectiveCall> TopkCompressor::plan(const BucketLayout& layout, int) const {
  return sparse::allgather_plan(sparse::kept_count(layout.numel(), k_));
}

void TopkCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void TopkCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  sparse::check_int32_range("topk", b.index, n);
  const int64_t K = sparse::kept_count(n, k_);
  values_.resize(K);
  indices_.resize(K);
  sparse::select_topk(b.data, n, K, values_.data(), indices_.data());
  if (local) sparse::scatter_add(values_.data(), indices_.data(), K, local, n, 1.0f);
  sparse::allgather_decode(comm, values_.data(), indices_.data(), K, b.data, n);
}

void TopkCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                               const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  sparse::check_int32_range("topk", bucket_index, n);
  const int64_t K = sparse::kept_count(n, k_);
  values_.resize(K);
  indices_.resize(K);
  sparse::select_topk(in, n, K, values_.data(), indices_.data());
  sparse::scatter_add(values_.data(), indices_.data(), K, out, n, 1.0f);
}

void register_topk(Registry& r) {
  r.add({.name = "topk",
         .params = "k=<fraction kept, (0,1], default 0.01>",
         .summary = "largest-magnitude fraction k; all-gather of values (f32) + indices (i32)",
         .cpu = [](const SchemeArgs& a) {
           return std::make_unique<TopkCompressor>(a.get_fraction("k", 0.01));
         },
         .facts = {.recommend_grid = {"topk:k={0.1|0.01|0.001}"}, .convergence_specs = {"ef(topk:k=0.01)", "topk:k=0.1"},
                   .cost_grid = {"topk:k={0.1|0.001}", "ef(topk:k=0.01)"},
                   // cuda/topk.cu: exact top-K by radix select; decode: the all-gathered
                   // pairs scatter-added rank by rank.
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int world) {
                     const int64_t n = l.numel(), K = sparse::kept_count(n, a.get_double("k", 0.01));
                     return CodecWork{.encode = select_topk_work(n, K), .decode = scatter_add_work(n, K, world)};
                   }}});
}

}  // namespace gcu::compress
