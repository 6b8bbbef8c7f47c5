// "topkc" on the CPU (topkc.h).
#include "topkc.h"

#include "sparse.h"

#include <algorithm>
#include <climits>

namespace gcu::compress {

std::string TopkcCompressor::spec() const {
  return "topkc:k=" + format_param(k_) + ",chunk=" + std::to_string(chunk_);
}

int64_t TopkcCompressor::payload_count(int64_t n) const {
  const int64_t m = (n + chunk_ - 1) / chunk_;
  const int64_t C = sparse::kept_count(m, k_);
  return std::min(C * chunk_, n);
}

std::vector<CollectiveCall> TopkcCompressor::plan(const BucketLayout& layout, int) const {
  const int64_t n = layout.numel();
  if (n == 0) return {};
  const int64_t m = (n + chunk_ - 1) / chunk_;
  std::vector<CollectiveCall> calls;
  if (sparse::kept_count(m, k_) < m)
    calls.push_back({CollectiveKind::AllReduce, WireType::F32, m, "chunk norms"});
  calls.push_back({CollectiveKind::AllReduce, WireType::F32, payload_count(n), "chunk values"});
  return calls;
}

void TopkcCompressor::chunk_norms(const float* x, int64_t n) {
  const int64_t m = (n + chunk_ - 1) / chunk_;
  norms_.resize(m);
#pragma omp parallel for schedule(static) if (n >= (1 << 18))
  for (int64_t c = 0; c < m; ++c) {
    const int64_t lo = c * chunk_, hi = std::min(n, lo + chunk_);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) s += static_cast<double>(x[i]) * x[i];
    norms_[c] = static_cast<float>(s);
  }
}

void TopkcCompressor::choose_chunks(int64_t n) {
  const int64_t m = (n + chunk_ - 1) / chunk_;
  const int64_t C = sparse::kept_count(m, k_);
  chosen_.resize(C);
  scratch_.resize(C);
  sparse::select_topk(norms_.data(), m, C, scratch_.data(), chosen_.data());
}

namespace {
// dst = 0 outside chosen chunks, src * scale inside (src packed, ascending chunk order).
void unpack(const float* packed, const std::vector<int32_t>& chosen, int64_t chunk, int64_t n,
            float scale, float* out) {
  std::fill(out, out + n, 0.0f);
  int64_t o = 0;
  for (int32_t c : chosen) {
    const int64_t lo = c * chunk, hi = std::min(n, lo + chunk);
    // Scale 1 (one rank, roundtrip) copies: a signalling NaN stays signalling whatever the
    // compiler does with x * 1 (the GPU does the same: cuda/topkc.cu).
    if (scale == 1.0f)
      std::copy(packed + o, packed + o + (hi - lo), out + lo);
    else
      for (int64_t i = lo; i < hi; ++i) out[i] = packed[o + (i - lo)] * scale;
    o += hi - lo;
  }
}
void pack(const float* x, const std::vector<int32_t>& chosen, int64_t chunk, int64_t n,
          float* packed, int64_t count) {
  int64_t o = 0;
  for (int32_t c : chosen) {
    const int64_t lo = c * chunk, hi = std::min(n, lo + chunk);
    std::copy(x + lo, x + hi, packed + o);
    o += hi - lo;
  }
  std::fill(packed + o, packed + count, 0.0f);
}
}  // namespace

void TopkcCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void TopkcCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  sparse::check_int32_range("topkc", b.index, (n + chunk_ - 1) / chunk_);
  const int64_t m = (n + chunk_ - 1) / chunk_;
  const int64_t C = sparse::kept_count(m, k_);
  if (C < m) {
    chunk_norms(b.data, n);
    comm.all_reduce(norms_.data(), m, WireType::F32, ReduceOp::Sum);
    choose_chunks(n);
  } else {
    chosen_.resize(m);
    for (int64_t c = 0; c < m; ++c) chosen_[c] = static_cast<int32_t>(c);
  }
  const int64_t P = payload_count(n);
  payload_.resize(P);
  pack(b.data, chosen_, chunk_, n, payload_.data(), P);
  if (local) unpack(payload_.data(), chosen_, chunk_, n, 1.0f, local);
  comm.all_reduce(payload_.data(), P, WireType::F32, ReduceOp::Sum);
  unpack(payload_.data(), chosen_, chunk_, n, 1.0f / static_cast<float>(comm.world_size()), b.data);
}

void TopkcCompressor::roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  chunk_norms(in, n);
  choose_chunks(n);
  const int64_t P = payload_count(n);
  payload_.resize(P);
  pack(in, chosen_, chunk_, n, payload_.data(), P);
  unpack(payload_.data(), chosen_, chunk_, n, 1.0f, out);
}

void register_topkc(Registry& r) {
  r.add({.name = "topkc",
         .params = "k=<fraction of chunks kept, (0,1], default 0.01>, chunk=<elements per chunk, default 256>",
         .summary = "chunked top-k: all-reduce of chunk norms, then all-reduce of the agreed chunks' values",
         .cpu = [](const SchemeArgs& a) {
           const int64_t chunk = a.get_positive_int("chunk", 256);
           if (chunk > INT32_MAX)
             throw CompressorError("topkc: chunk=" + std::to_string(chunk) + " is above 2^31-1");
           return std::make_unique<TopkcCompressor>(a.get_fraction("k", 0.01), chunk);
         },
         .facts = {.recommend_grid = {"topkc:k={0.1|0.01|0.001}"}, .cost_grid = {"topkc:k={0.1|0.001}"},
                   // cuda/topkc.cu: norms_kernel (reads x, writes m chunk norms), top-C of
                   // the m norms (or iota when every chunk is kept), pack_kernel (P floats
                   // read and written); decode: memset of out, unpack_kernel (P read, P written).
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int) {
                     const int64_t n = l.numel(), chunk = a.get_int("chunk", 256);
                     const int64_t m = (n + chunk - 1) / chunk, C = sparse::kept_count(m, a.get_double("k", 0.01));
                     const int64_t P = std::min(C * chunk, n);
                     const GpuWork choose = C < m ? GpuWork{4.0 * n + 4.0 * m, 1, 0, false} + select_topk_work(m, C)
                                                  : GpuWork{4.0 * m, 1, 0, false};
                     return CodecWork{.encode = choose + elementwise_work(P, 4, 4),
                                      .decode = GpuWork{4.0 * n + 8.0 * P, 2, 0, false}};
                   }}});
}

}  // namespace gcu::compress
