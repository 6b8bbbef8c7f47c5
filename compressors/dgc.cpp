// "dgc" on the CPU (dgc.h).
#include "dgc.h"

#include "rng.h"
#include "sparse.h"
#include "state_io.h"

#include <algorithm>

namespace gcu::compress {
namespace {
constexpr uint64_t kDgcSalt = 0x646763ULL;  // "dgc"
}

std::string DgcCompressor::spec() const {
  return "dgc:k=" + format_param(k_) + ",sample=" + format_param(sample_) +
         ",seed=" + std::to_string(seed_);
}

std::vector<CollectiveCall> DgcCompressor::plan(const BucketLayout& layout, int) const {
  return sparse::allgather_plan(sparse::kept_count(layout.numel(), k_));
}

int64_t DgcCompressor::select(const float* x, int64_t n, int64_t bucket, uint64_t step,
                              float* values, int32_t* indices) {
  const int64_t K = sparse::kept_count(n, k_);
  const int64_t S = sparse::kept_count(n, sample_);
  const uint64_t key = rng::stream_key(seed_, static_cast<uint64_t>(bucket), step, kDgcSalt);
  std::vector<uint32_t> keys(S);
  for (int64_t j = 0; j < S; ++j) {
    const uint64_t s = (static_cast<uint64_t>(rng::bits32(key, static_cast<uint64_t>(j))) *
                        static_cast<uint64_t>(n)) >> 32;
    keys[j] = sparse::mag_key(x[s]);
  }
  const int64_t ks = sparse::kept_count(S, k_);
  std::nth_element(keys.begin(), keys.begin() + (ks - 1), keys.end(), std::greater<uint32_t>());
  const uint32_t thr = keys[ks - 1];
  // Sel in ascending index order.
  sel_v_.clear();
  sel_i_.clear();
  for (int64_t i = 0; i < n; ++i)
    if (sparse::mag_key(x[i]) >= thr) {
      sel_v_.push_back(x[i]);
      sel_i_.push_back(static_cast<int32_t>(i));
    }
  const int64_t c = static_cast<int64_t>(sel_v_.size());
  if (c >= K) {
    // The K largest of Sel; select_topk keeps ascending order of positions in Sel.
    pos_.resize(K);
    sparse::select_topk(sel_v_.data(), c, K, values, pos_.data());
    for (int64_t j = 0; j < K; ++j) indices[j] = sel_i_[pos_[j]];
  } else {
    std::copy(sel_v_.begin(), sel_v_.end(), values);
    std::copy(sel_i_.begin(), sel_i_.end(), indices);
    std::fill(values + c, values + K, 0.0f);
    std::fill(indices + c, indices + K, 0);
  }
  return c;
}

void DgcCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void DgcCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  sparse::check_int32_range("dgc", b.index, n);
  const int64_t K = sparse::kept_count(n, k_);
  values_.resize(K);
  indices_.resize(K);
  select(b.data, n, b.index, steps_[b.index]++, values_.data(), indices_.data());
  if (local) sparse::scatter_add(values_.data(), indices_.data(), K, local, n, 1.0f);
  sparse::allgather_decode(comm, values_.data(), indices_.data(), K, b.data, n);
}

void DgcCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                              const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  sparse::check_int32_range("dgc", bucket_index, n);
  const int64_t K = sparse::kept_count(n, k_);
  values_.resize(K);
  indices_.resize(K);
  select(in, n, bucket_index, steps_[bucket_index]++, values_.data(), indices_.data());
  sparse::scatter_add(values_.data(), indices_.data(), K, out, n, 1.0f);
}

std::vector<uint8_t> DgcCompressor::save_state() const {
  StateWriter w("GCUDGC1");
  w.put<uint64_t>(steps_.size());
  for (const auto& [bucket, step] : steps_) {
    w.put<int64_t>(bucket);
    w.put<uint64_t>(step);
  }
  return w.take();
}

void DgcCompressor::load_state(const std::vector<uint8_t>& state) {
  steps_.clear();
  if (state.empty()) return;
  StateReader r(state, "GCUDGC1", spec());
  const auto count = r.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto bucket = r.get<int64_t>();
    steps_[bucket] = r.get<uint64_t>();
  }
  r.expect_end();
}

void register_dgc(Registry& r) {
  r.add({.name = "dgc",
         .params = "k=<fraction kept, (0,1], default 0.01>, sample=<fraction sampled for the threshold, "
                   "default 0.01>, seed=<default 0>",
         .summary = "threshold from a random sample's top-k; fixed-size all-gather of values + indices",
         .cpu = [](const SchemeArgs& a) {
           const uint64_t seed = a.get_seed();
           return std::make_unique<DgcCompressor>(a.get_fraction("k", 0.01),
                                                  a.get_fraction("sample", 0.01),
                                                  seed);
         },
         .facts = {.recommend_grid = {"dgc:k={0.01|0.001}"}, .cost_grid = {"dgc:k={0.1|0.001}"},
                   // cuda/dgc.cu: sample_kernel (S scattered reads, S written), top-ks of
                   // the sample, at_least_kernel, count_selection (count_tiles over x, CUB
                   // scan, total_kernel, an 8-byte copy to the host that waits for the
                   // stream), then the threshold path: the compaction and 2 memsets of
                   // the padding. Counted at that minimum: the exact fallback (top-K of x)
                   // adds 3 histogram passes. Decode as topk's.
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int world) {
                     const double k = a.get_double("k", 0.01);
                     const int64_t n = l.numel(), K = sparse::kept_count(n, k);
                     const int64_t S = sparse::kept_count(n, a.get_double("sample", 0.01)), ks = sparse::kept_count(S, k);
                     const GpuWork count{4.0 * n, 1 + kCubLaunches + 1 + 1, 0, true};
                     return CodecWork{.encode = GpuWork{8.0 * S, 2, 0, false} + select_topk_work(S, ks) + count +
                                                select_by_state_work(n, K) + GpuWork{0, 2, 0, false},
                                      .decode = scatter_add_work(n, K, world)};
                   }}});
}

}  // namespace gcu::compress
