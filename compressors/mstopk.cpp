// "mstopk" on the CPU (mstopk.h).
#include "mstopk.h"

#include "sparse.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace gcu::compress {
namespace {
constexpr int64_t kMstopkParallelMin = 1 << 18;

int64_t count_ge(const float* x, int64_t n, float thr) {
  int64_t c = 0;
#pragma omp parallel for simd reduction(+ : c) schedule(static) if (n >= kMstopkParallelMin)
  for (int64_t i = 0; i < n; ++i) c += std::fabs(x[i]) >= thr ? 1 : 0;
  return c;
}

// The binary search's result: Set1 = {|x| >= thr1} holds k1 <= K elements; the band
// [thr2, thr1) supplies the remaining K - k1.
struct Band {
  int64_t k1 = 0;
  float thr1 = std::numeric_limits<float>::infinity(), thr2 = 0.0f;
};

// Narrows the candidates to [lo_thr, hi_thr): compacted ones in place, or the whole
// buffer (|x|, branch-free) once `inside` is small enough. Kept out of line: inlined into
// search_band, GCC 12 reloads the |x| mask from memory in the loop over the whole buffer
// (select measured ~2% slower).
[[gnu::noinline]] void narrow_candidates(const float* x, int64_t n, std::vector<float>& cand, bool& compacted,
                                         int64_t inside, float lo_thr, float hi_thr) {
  if (compacted) {
    size_t o = 0;
    for (size_t i = 0; i < cand.size(); ++i) {
      const float a = cand[i];
      cand[o] = a;
      o += (a >= lo_thr && a < hi_thr) ? 1 : 0;
    }
    cand.resize(o);
  } else if (inside <= n / 16) {
    cand.resize(static_cast<size_t>(inside) + 1);
    size_t o = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float a = std::fabs(x[i]);
      cand[o] = a;
      o += (a >= lo_thr && a < hi_thr) ? 1 : 0;
    }
    cand.resize(o);
    compacted = true;
  }
}

// Binary search of the threshold ratio in [0, 1] between mean and u = max |x|, iters passes.
// Counting: thresholds are monotone in ratio, so every later threshold lies in
// [lo_thr, hi_thr] (the last l- and r-thresholds). Count on the whole buffer (one
// vectorized pass each) while that interval holds many elements, then compact it once
// (branch-free) and count on the candidates: #{a >= thr} = above + #{cand >= thr}.
Band search_band(const float* x, int64_t n, int64_t K, int64_t iters, float mean, float u) {
  const float inf = std::numeric_limits<float>::infinity();
  Band band;
  float l = 0.0f, r = 1.0f;
  int64_t k2 = n;
  std::vector<float> cand;
  bool compacted = false;
  float lo_thr = mean, hi_thr = inf;
  int64_t above = 0, inside = n;  // above = #{a >= hi_thr}; inside >= #{lo_thr <= a < hi_thr}
  for (int64_t it = 0; it < iters; ++it) {
    const float ratio = l + (r - l) / 2.0f;
    const float thr = mean + ratio * (u - mean);
    const int64_t nnz = compacted
        ? above + count_ge(cand.data(), static_cast<int64_t>(cand.size()), thr)
        : count_ge(x, n, thr);
    if (nnz <= K) {
      r = ratio;
      inside -= nnz - above;
      above = nnz;
      hi_thr = thr;
      if (nnz > band.k1) { band.k1 = nnz; band.thr1 = thr; }
    } else {
      l = ratio;
      inside = nnz - above;
      lo_thr = thr;
      if (nnz < k2) { k2 = nnz; band.thr2 = thr; }
    }
    if (it + 1 == iters) break;
    narrow_candidates(x, n, cand, compacted, inside, lo_thr, hi_thr);
  }
  return band;
}

// Output: Set1 plus the first K - k1 of the band, ascending index.
inline void write_selection(const float* x, int64_t n, int64_t K, const Band& band, float* values,
                            int32_t* indices) {
  int64_t o = 0, band_left = K - band.k1;
  for (int64_t i = 0; i < n && o < K; ++i) {
    const float a = std::fabs(x[i]);
    if (a >= band.thr1) {
      values[o] = x[i];
      indices[o++] = static_cast<int32_t>(i);
    } else if (band_left > 0 && a >= band.thr2) {
      --band_left;
      values[o] = x[i];
      indices[o++] = static_cast<int32_t>(i);
    }
  }
}
}  // namespace

std::string MstopkCompressor::spec() const {
  return "mstopk:k=" + format_param(k_) + ",iters=" + std::to_string(iters_);
}

std::vector<CollectiveCall> MstopkCompressor::plan(const BucketLayout& layout, int) const {
  return sparse::allgather_plan(sparse::kept_count(layout.numel(), k_));
}

void MstopkCompressor::select(const float* x, int64_t n, float* values, int32_t* indices) const {
  const int64_t K = sparse::kept_count(n, k_);
  if (K == 0) return;
  // One vectorized pass: sum of |x| (double) and the largest magnitude key, which gives
  // both max |x| and whether a NaN/Inf is present (key >= 0x7f800000).
  double sum = 0.0;
  int32_t kmax = 0;
#pragma omp parallel for simd reduction(+ : sum) reduction(max : kmax) schedule(static) \
    if (n >= kMstopkParallelMin)
  for (int64_t i = 0; i < n; ++i) {
    const int32_t key = static_cast<int32_t>(sparse::mag_key(x[i]));
    sum += static_cast<double>(std::fabs(x[i]));
    kmax = key > kmax ? key : kmax;
  }
  if (kmax >= 0x7f800000) return sparse::select_topk(x, n, K, values, indices);
  float u;
  std::memcpy(&u, &kmax, 4);
  // (mean <= u mathematically; the clamp keeps every threshold >= mean after rounding)
  const float mean = std::min(u, static_cast<float>(sum / static_cast<double>(n)));
  write_selection(x, n, K, search_band(x, n, K, iters_, mean, u), values, indices);
}

void MstopkCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void MstopkCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  sparse::check_int32_range("mstopk", b.index, n);
  const int64_t K = sparse::kept_count(n, k_);
  values_.resize(K);
  indices_.resize(K);
  select(b.data, n, values_.data(), indices_.data());
  if (local) sparse::scatter_add(values_.data(), indices_.data(), K, local, n, 1.0f);
  sparse::allgather_decode(comm, values_.data(), indices_.data(), K, b.data, n);
}

void MstopkCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                                 const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  sparse::check_int32_range("mstopk", bucket_index, n);
  const int64_t K = sparse::kept_count(n, k_);
  values_.resize(K);
  indices_.resize(K);
  select(in, n, values_.data(), indices_.data());
  sparse::scatter_add(values_.data(), indices_.data(), K, out, n, 1.0f);
}

void register_mstopk(Registry& r) {
  r.add({.name = "mstopk",
         .params = "k=<fraction kept, (0,1], default 0.01>, iters=<binary-search passes, 1..64, default 20>",
         .summary = "top-k by MSTopK threshold binary search; all-gather of values (f32) + indices (i32)",
         .cpu = [](const SchemeArgs& a) {
           // Each pass halves a float interval: past 64 passes nothing changes, only the
           // time grows (iters=338933892 hung the scheme fuzzer).
           const int64_t iters = a.get_positive_int("iters", 20);
           if (iters > MstopkCompressor::kMaxIters)
             throw CompressorError("mstopk: iters=" + std::to_string(iters) + " is out of range [1, " +
                                   std::to_string(MstopkCompressor::kMaxIters) + "] (binary-search passes)");
           return std::make_unique<MstopkCompressor>(a.get_fraction("k", 0.01), iters);
         },
         .facts = {.recommend_grid = {"mstopk:k={0.01|0.001}"}, .cost_grid = {"mstopk:k={0.1|0.001}"},
                   // cuda/mstopk.cu: stats_kernel (reads x), search_init, the radix passes
                   // of the NaN/Inf path (9 launches doing nothing on finite input), per
                   // search pass count_ge + search_update and, but after the last,
                   // compact_candidates; 2 memsets of the K pairs, search_finish, then the
                   // compaction. Counted at its minimum: one count and one compaction over
                   // x (the counts over the candidates and any further full counts are
                   // data-dependent). Decode as topk's.
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int world) {
                     const int64_t n = l.numel(), K = sparse::kept_count(n, a.get_double("k", 0.01));
                     const int64_t iters = a.get_int("iters", 20);
                     const GpuWork search{4.0 * n + 4.0 * n * (iters >= 1) + 4.0 * n * (iters >= 2) + 8.0 * K,
                                          2.0 + 9 + static_cast<double>(3 * iters - 1) + 2 + 1, 0, true};
                     return CodecWork{.encode = search + select_by_state_work(n, K),
                                      .decode = scatter_add_work(n, K, world)};
                   }}});
}

}  // namespace gcu::compress
