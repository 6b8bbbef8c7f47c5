// Shared sparsification kernels on the CPU (sparse.h).
#include "sparse.h"

#include <algorithm>
#include <numeric>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gcu::compress::sparse {
namespace {
constexpr int64_t kSmallN = 4096;        // below: nth_element path
constexpr int64_t kSparseParallelMin = 1 << 18; // below: one thread
constexpr int kBins = 1 << 16;

int num_threads_for(int64_t n) {
#ifdef _OPENMP
  return n >= kSparseParallelMin ? omp_get_max_threads() : 1;
#else
  (void)n;
  return 1;
#endif
}

// k == n: every element, in index order.
inline void select_all(const float* x, int64_t n, float* values, int32_t* indices) {
  for (int64_t i = 0; i < n; ++i) { values[i] = x[i]; indices[i] = static_cast<int32_t>(i); }
}

// A key (or a bin of the upper 16 bits) and how many elements equal to it are needed.
struct Boundary {
  uint32_t key = 0;
  int64_t ties = 0;
};

// From the top of the nt per-thread histograms of the upper 16 bits: the bin holding the
// k-th largest key, and how many of the k fall in it. (Returned by value: the shared
// variables the caller assigns stay non-addressable, so the passes keep them in registers.)
inline Boundary find_boundary_bin(const uint32_t* h1, int nt, int64_t k) {
  Boundary r;
  int64_t acc = 0;
  for (int b = kBins - 1; b >= 0; --b) {
    int64_t c = 0;
    for (int s = 0; s < nt; ++s) c += h1[static_cast<size_t>(s) * kBins + b];
    if (acc + c >= k) { r.key = static_cast<uint32_t>(b); r.ties = k - acc; break; }
    acc += c;
  }
  return r;
}

// Inside the boundary bin (histograms of the lower 16 bits): the threshold key, and how
// many elements equal to it are needed.
inline Boundary find_threshold(const uint32_t* h2, int nt, uint32_t hi_bin, int64_t ties_needed) {
  Boundary r{0, ties_needed};
  int64_t acc = 0;  // among the boundary bin, from the top
  for (int b = kBins - 1; b >= 0; --b) {
    int64_t c = 0;
    for (int s = 0; s < nt; ++s) c += h2[static_cast<size_t>(s) * kBins + b];
    if (acc + c >= ties_needed) {
      r.key = (hi_bin << 16) | static_cast<uint32_t>(b);
      r.ties = ties_needed - acc;
      break;
    }
    acc += c;
  }
  return r;
}

// Per thread s: how many of its keys are above the threshold (gt), equal to it (eq), how
// many of those it takes (first threads first), and where its output starts (offset).
inline void plan_output(const uint32_t* h1, const uint32_t* h2, int nt, uint32_t hi_bin, uint32_t threshold,
                        int64_t ties_needed, int64_t* gt, int64_t* eq, int64_t* take, int64_t* offset) {
  const uint32_t lowb = threshold & 0xffffu;
  int64_t ties_left = ties_needed, off = 0;
  for (int s = 0; s < nt; ++s) {
    const uint32_t* s1 = h1 + static_cast<size_t>(s) * kBins;
    const uint32_t* s2 = h2 + static_cast<size_t>(s) * kBins;
    int64_t g = 0;
    for (int b = static_cast<int>(hi_bin) + 1; b < kBins; ++b) g += s1[b];
    for (int b = static_cast<int>(lowb) + 1; b < kBins; ++b) g += s2[b];
    gt[s] = g;
    eq[s] = s2[lowb];
    take[s] = std::min(eq[s], ties_left);
    ties_left -= take[s];
    offset[s] = off;
    off += g + take[s];
  }
}
}  // namespace

void check_int32_range(const std::string& scheme, int64_t bucket_index, int64_t n) {
  if (n > INT32_MAX)
    throw CompressorError(scheme + ": bucket " + std::to_string(bucket_index) + " has " +
                          std::to_string(n) + " elements; indices are int32 (at most 2^31-1)");
}

void select_topk_reference(const float* x, int64_t n, int64_t k, float* values,
                           int32_t* indices) {
  if (k <= 0) return;
  std::vector<int32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  auto before = [x](int32_t a, int32_t b) {
    const uint32_t ka = mag_key(x[a]), kb = mag_key(x[b]);
    return ka != kb ? ka > kb : a < b;
  };
  if (k < n) std::nth_element(idx.begin(), idx.begin() + (k - 1), idx.end(), before);
  std::sort(idx.begin(), idx.begin() + k);
  for (int64_t j = 0; j < k; ++j) {
    indices[j] = idx[j];
    values[j] = x[idx[j]];
  }
}

void select_topk(const float* x, int64_t n, int64_t k, float* values, int32_t* indices) {
  if (k <= 0) return;
  if (n <= kSmallN) return select_topk_reference(x, n, k, values, indices);
  if (k == n) return select_all(x, n, values, indices);
  const int T = num_threads_for(n);
  std::vector<uint32_t> h1(static_cast<size_t>(T) * kBins), h2(static_cast<size_t>(T) * kBins);
  std::vector<int64_t> gt(T), eq(T), take(T), offset(T);
  uint32_t hi_bin = 0, threshold = 0;
  int64_t ties_needed = 0;
#pragma omp parallel num_threads(T)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
#else
    const int t = 0, nt = 1;
#endif
    const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    uint32_t* my1 = h1.data() + static_cast<size_t>(t) * kBins;
    uint32_t* my2 = h2.data() + static_cast<size_t>(t) * kBins;
    // Pass 1: histogram of the upper 16 bits of the keys.
    for (int64_t i = lo; i < hi; ++i) ++my1[mag_key(x[i]) >> 16];
#pragma omp barrier
#pragma omp single
    {
      const Boundary b = find_boundary_bin(h1.data(), nt, k);
      hi_bin = b.key;
      ties_needed = b.ties;
    }
    // Pass 2: histogram of the lower 16 bits inside the boundary bin.
    for (int64_t i = lo; i < hi; ++i) {
      const uint32_t key = mag_key(x[i]);
      if ((key >> 16) == hi_bin) ++my2[key & 0xffffu];
    }
#pragma omp barrier
#pragma omp single
    {
      const Boundary b = find_threshold(h2.data(), nt, hi_bin, ties_needed);
      threshold = b.key;
      ties_needed = b.ties;
      plan_output(h1.data(), h2.data(), nt, hi_bin, threshold, ties_needed, gt.data(), eq.data(), take.data(),
                  offset.data());
    }
    // Pass 3: write the selection in ascending index order.
    int64_t o = offset[t], ties = take[t];
    const uint32_t thr = threshold;
    for (int64_t i = lo; i < hi; ++i) {
      const uint32_t key = mag_key(x[i]);
      if (key > thr || (key == thr && ties > 0)) {
        if (key == thr) --ties;
        values[o] = x[i];
        indices[o] = static_cast<int32_t>(i);
        ++o;
      }
    }
  }
}

void scatter_add(const float* values, const int32_t* indices, int64_t total, float* out,
                 int64_t n, float scale) {
#pragma omp parallel for simd schedule(static) if (n >= kSparseParallelMin)
  for (int64_t i = 0; i < n; ++i) out[i] = 0.0f;
  for (int64_t j = 0; j < total; ++j) out[indices[j]] += values[j] * scale;
}

void allgather_decode(Communicator& comm, const float* values, const int32_t* indices,
                      int64_t count, float* out, int64_t n) {
  const int p = comm.world_size();
  std::vector<float> all_v(static_cast<size_t>(p) * count);
  std::vector<int32_t> all_i(static_cast<size_t>(p) * count);
  comm.all_gather(values, all_v.data(), count, WireType::F32);
  comm.all_gather(indices, all_i.data(), count, WireType::I32);
  scatter_add(all_v.data(), all_i.data(), static_cast<int64_t>(p) * count, out, n,
              1.0f / static_cast<float>(p));
}

std::vector<CollectiveCall> allgather_plan(int64_t count) {
  if (count == 0) return {};
  return {{CollectiveKind::AllGather, WireType::F32, count, "values"},
          {CollectiveKind::AllGather, WireType::I32, count, "indices"}};
}

}  // namespace gcu::compress::sparse
