// "signsgd" on the CPU (signsgd.h): AVX2 sign packing and majority vote (bitpack.h).
#include "signsgd.h"

#include "bitpack.h"
#include "half.h"

#include <cmath>
#include <limits>

namespace gcu::compress {

std::string SignSgdCompressor::spec() const { return scaled_ ? "signsgd" : "signsgd:scaled=false"; }

std::vector<CollectiveCall> SignSgdCompressor::plan(const BucketLayout& layout, int) const {
  const int64_t n = layout.numel();
  if (n == 0) return {};
  return {{CollectiveKind::AllGather, WireType::U64, bits::sign_words(n) + 1, "signs+scale"}};
}

void SignSgdCompressor::encode(const float* x, int64_t n) {
  const int64_t nw = bits::sign_words(n);
  send_.resize(static_cast<size_t>(nw + 1));
  const double sum_abs = bits::pack_signs(x, n, send_.data());
  const float scale = std::isfinite(sum_abs) ? static_cast<float>(sum_abs / static_cast<double>(n))
                                             : std::numeric_limits<float>::quiet_NaN();
  send_[nw] = float_bits(scale);
}

void SignSgdCompressor::decode(const uint64_t* all, int p, int64_t n, float* out) const {
  const int64_t stride = bits::sign_words(n) + 1;
  double s = 0;
  bool finite = true;
  for (int r = 0; r < p; ++r) {
    const float sr = bits_float(static_cast<uint32_t>(all[r * stride + stride - 1]));
    finite = finite && std::isfinite(sr);
    s += sr;
  }
  if (!finite) {
    std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  const float S = scaled_ ? static_cast<float>(s / p) : 1.0f;
  bits::vote_signs(all, stride, p, n, S, -S, 0.0f, out);
}

void SignSgdCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void SignSgdCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  encode(b.data, n);
  if (local) decode(send_.data(), 1, n, local);
  const int p = comm.world_size();
  recv_.resize(send_.size() * static_cast<size_t>(p));
  comm.all_gather(send_.data(), recv_.data(), static_cast<int64_t>(send_.size()), WireType::U64);
  decode(recv_.data(), p, n, b.data);
}

void SignSgdCompressor::roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  encode(in, n);
  decode(send_.data(), 1, n, out);
}

void register_signsgd(Registry& r) {
  r.add({.name = "signsgd",
         .params = "scaled=<bool, default true: scale the vote by the mean |g|>",
         .summary = "signSGD with majority vote; all-gather of packed sign bits, decode O(p n)",
         .cpu = [](const SchemeArgs& a) { return std::make_unique<SignSgdCompressor>(a.get_bool("scaled", true)); },
         .facts = {.recommend_grid = {"signsgd"}, .convergence_specs = {"signsgd"},
                   // cuda/signsgd.cu: the sign encoder; decode: vote_scale_kernel, then
                   // vote_kernel reads every rank's words and writes out.
                   .gpu_work = [](const SchemeArgs&, const BucketLayout& l, int world) {
                     const int64_t n = l.numel();
                     return CodecWork{.encode = sign_encode_work(n),
                                      .decode = GpuWork{4.0 * n + sign_wire_bytes(n) * world, 2, 0, false}};
                   }}});
}

}  // namespace gcu::compress
