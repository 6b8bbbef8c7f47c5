// "randomk" on the CPU (randomk.h).
#include "randomk.h"

#include "rng.h"
#include "sparse.h"
#include "state_io.h"

#include <algorithm>

namespace gcu::compress {
namespace {
constexpr uint64_t kRandomkSalt = 0x72616e646bULL;  // "randk": all ranks draw the same indices

int ceil_log2(uint64_t n) {
  int b = 0;
  while ((uint64_t{1} << b) < n) ++b;
  return b;
}
}  // namespace

std::string RandomkCompressor::spec() const {
  return "randomk:k=" + format_param(k_) + ",seed=" + std::to_string(seed_) +
         ",unbiased=" + (unbiased_ ? "true" : "false");
}

std::vector<CollectiveCall> RandomkCompressor::plan(const BucketLayout& layout, int) const {
  const int64_t K = sparse::kept_count(layout.numel(), k_);
  if (K == 0) return {};
  return {{CollectiveKind::AllReduce, WireType::F32, K, "values"}};
}

float RandomkCompressor::scale(int64_t n) const {
  if (!unbiased_ || n == 0) return 1.0f;
  return static_cast<float>(static_cast<double>(n) / static_cast<double>(sparse::kept_count(n, k_)));
}

std::vector<int32_t> RandomkCompressor::indices(int64_t bucket, uint64_t step, int64_t n) const {
  const int64_t K = sparse::kept_count(n, k_);
  std::vector<int32_t> idx(K);
  if (K == 0) return idx;
  const uint64_t key = rng::stream_key(seed_, static_cast<uint64_t>(bucket), step, kRandomkSalt);
  const int h = std::max(1, (ceil_log2(static_cast<uint64_t>(n)) + 1) / 2);
  const uint64_t mask = (uint64_t{1} << h) - 1;
  const uint64_t un = static_cast<uint64_t>(n);
  const uint64_t offset = rng::mix64(key) % un;
  auto perm = [&](uint64_t v) {
    uint64_t L = v >> h, R = v & mask;
    for (uint64_t r = 0; r < 4; ++r) {
      const uint64_t nl = R;
      R = L ^ (rng::bits32(key + r, R) & mask);
      L = nl;
    }
    return (L << h) | R;
  };
#pragma omp parallel for schedule(static) if (K >= (1 << 16))
  for (int64_t j = 0; j < K; ++j) {
    uint64_t v = perm(static_cast<uint64_t>(j));
    while (v >= un) v = perm(v);
    idx[j] = static_cast<int32_t>((v + offset) % un);
  }
  return idx;
}

void RandomkCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void RandomkCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  sparse::check_int32_range("randomk", b.index, n);
  const auto idx = indices(b.index, steps_[b.index]++, n);
  const int64_t K = static_cast<int64_t>(idx.size());
  values_.resize(K);
  for (int64_t j = 0; j < K; ++j) values_[j] = b.data[idx[j]];
  const float s = scale(n);
  if (local) sparse::scatter_add(values_.data(), idx.data(), K, local, n, s);
  comm.all_reduce(values_.data(), K, WireType::F32, ReduceOp::Sum);
  // Indices are distinct: scatter-add = scatter.
  sparse::scatter_add(values_.data(), idx.data(), K, b.data, n, s / static_cast<float>(comm.world_size()));
}

void RandomkCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                                  const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  sparse::check_int32_range("randomk", bucket_index, n);
  const auto idx = indices(bucket_index, steps_[bucket_index]++, n);
  const int64_t K = static_cast<int64_t>(idx.size());
  values_.resize(K);
  for (int64_t j = 0; j < K; ++j) values_[j] = in[idx[j]];
  sparse::scatter_add(values_.data(), idx.data(), K, out, n, scale(n));
}

std::vector<uint8_t> RandomkCompressor::save_state() const {
  StateWriter w("GCURK1");
  w.put<uint64_t>(steps_.size());
  for (const auto& [bucket, step] : steps_) {
    w.put<int64_t>(bucket);
    w.put<uint64_t>(step);
  }
  return w.take();
}

void RandomkCompressor::load_state(const std::vector<uint8_t>& state) {
  steps_.clear();
  if (state.empty()) return;
  StateReader r(state, "GCURK1", spec());
  const auto count = r.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto bucket = r.get<int64_t>();
    steps_[bucket] = r.get<uint64_t>();
  }
  r.expect_end();
}

void register_randomk(Registry& r) {
  r.add({.name = "randomk",
         .params = "k=<fraction kept, (0,1], default 0.01>, seed=<shared seed, default 0>, "
                   "unbiased=<scale by n/K, default false>",
         .summary = "random coordinates shared by all ranks (seed, bucket, step); all-reduce of values",
         .cpu = [](const SchemeArgs& a) {
           const uint64_t seed = a.get_seed();
           return std::make_unique<RandomkCompressor>(a.get_fraction("k", 0.01),
                                                      seed,
                                                      a.get_bool("unbiased", false));
         },
         .facts = {.recommend_grid = {"randomk:k={0.1|0.01|0.001}"}, .cost_grid = {"randomk:k={0.1|0.001}"},
                   // cuda/randomk.cu: indices_kernel draws the K indices and gathers x at
                   // them (K scattered reads, K values and K indices written); decode: one
                   // scatter of the all-reduced values.
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int) {
                     const int64_t n = l.numel(), K = sparse::kept_count(n, a.get_double("k", 0.01));
                     return CodecWork{.encode = {12.0 * K, 1, 0, false}, .decode = scatter_add_work(n, K, 1)};
                   }}});
}

}  // namespace gcu::compress
