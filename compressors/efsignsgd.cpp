// "efsignsgd" on the CPU (efsignsgd.h).
#include "efsignsgd.h"

#include "bitpack.h"
#include "half.h"
#include "state_io.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace gcu::compress {
namespace {
const char* kEfSignSgdMagic = "gcu.efsignsgd/1";

float scale_of(const std::vector<uint64_t>& words, int64_t n) {
  return bits_float(static_cast<uint32_t>(words[bits::sign_words(n)]));
}

// out = (1/p) sum_r scale_r * sign_r, or NaN everywhere if a scale is not finite.
void decode(const uint64_t* all, int p, int64_t n, float* out) {
  const int64_t stride = bits::sign_words(n) + 1;
  std::vector<float> scale(p);
  for (int r = 0; r < p; ++r) {
    scale[r] = bits_float(static_cast<uint32_t>(all[r * stride + stride - 1])) / static_cast<float>(p);
    if (!std::isfinite(scale[r])) {
      std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
      return;
    }
  }
  bits::sum_signs(all, stride, p, n, scale.data(), out);
}
}  // namespace

std::vector<CollectiveCall> EfSignSgdCompressor::plan(const BucketLayout& layout, int) const {
  const int64_t n = layout.numel();
  if (n == 0) return {};
  return {{CollectiveKind::AllGather, WireType::U64, bits::sign_words(n) + 1, "signs+scale"}};
}

std::vector<float>& EfSignSgdCompressor::encode(int64_t bucket_index, const float* g, int64_t n) {
  auto& e = residual_[bucket_index];
  if (e.empty()) e.assign(static_cast<size_t>(n), 0.0f);
  if (static_cast<int64_t>(e.size()) != n)
    throw CompressorError("efsignsgd: bucket " + std::to_string(bucket_index) + " has " +
                          std::to_string(n) + " elements, but its residual has " +
                          std::to_string(e.size()));
  float* q = e.data();
#pragma omp parallel for simd if (n > (1 << 16)) schedule(static)
  for (int64_t i = 0; i < n; ++i) q[i] += g[i];
  const int64_t nw = bits::sign_words(n);
  send_.resize(static_cast<size_t>(nw + 1));
  const double l1 = bits::pack_signs(q, n, send_.data());
  const float scale = std::isfinite(l1) ? static_cast<float>(l1 / static_cast<double>(n))
                                        : std::numeric_limits<float>::quiet_NaN();
  send_[nw] = float_bits(scale);
  return e;
}

void EfSignSgdCompressor::update_residual(std::vector<float>& e) const {
  const int64_t n = static_cast<int64_t>(e.size());
  const float s = scale_of(send_, n);
  float* q = e.data();
  if (!std::isfinite(s)) {
    std::fill(e.begin(), e.end(), 0.0f);
    return;
  }
#pragma omp parallel for simd if (n > (1 << 16)) schedule(static)
  for (int64_t i = 0; i < n; ++i) q[i] -= std::copysign(s, q[i]);
}

void EfSignSgdCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void EfSignSgdCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  auto& e = encode(b.index, b.data, n);
  update_residual(e);
  if (local) decode(send_.data(), 1, n, local);
  const int p = comm.world_size();
  recv_.resize(send_.size() * static_cast<size_t>(p));
  comm.all_gather(send_.data(), recv_.data(), static_cast<int64_t>(send_.size()), WireType::U64);
  decode(recv_.data(), p, n, b.data);
  // A non-finite scale on any rank resets every rank's residual (all see the same words).
  const int64_t stride = static_cast<int64_t>(send_.size());
  for (int r = 0; r < p; ++r)
    if (!std::isfinite(bits_float(static_cast<uint32_t>(recv_[r * stride + stride - 1])))) {
      std::fill(e.begin(), e.end(), 0.0f);
      break;
    }
}

void EfSignSgdCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                                    const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  auto& e = encode(bucket_index, in, n);
  update_residual(e);
  decode(send_.data(), 1, n, out);
}

// State: magic, u64 count, then per bucket: i64 index, u64 length, length floats.
std::vector<uint8_t> EfSignSgdCompressor::save_state() const {
  StateWriter w(kEfSignSgdMagic);
  w.put(uint64_t{residual_.size()});
  for (const auto& [index, e] : residual_) {
    w.put(index);
    w.put(uint64_t{e.size()});
    w.put_bytes(e.data(), e.size() * sizeof(float));
  }
  return w.take();
}

void EfSignSgdCompressor::load_state(const std::vector<uint8_t>& state) {
  if (state.empty()) { residual_.clear(); return; }
  StateReader r(state, kEfSignSgdMagic, "efsignsgd");
  std::map<int64_t, std::vector<float>> res;
  const auto count = r.get<uint64_t>();
  for (uint64_t k = 0; k < count; ++k) {
    const auto index = r.get<int64_t>();
    const auto len = r.get<uint64_t>();
    if (len > r.remaining() / sizeof(float))
      throw CompressorError("efsignsgd: checkpoint residual of bucket " + std::to_string(index) +
                            " claims " + std::to_string(len) + " floats, more than the state holds");
    std::vector<float> e(len);
    r.get_bytes(e.data(), len * sizeof(float));
    res[index] = std::move(e);
  }
  r.expect_end();
  residual_ = std::move(res);
}

void register_efsignsgd(Registry& r) {
  r.add({.name = "efsignsgd",
         .params = "",
         .summary = "scaled sign (||g+e||_1/n) with built-in error feedback; all-gather of packed signs + scale",
         .cpu = [](const SchemeArgs&) { return std::make_unique<EfSignSgdCompressor>(); },
         .facts = {.recommend_grid = {"efsignsgd"}, .convergence_specs = {"efsignsgd"},
                   // cuda/efsignsgd.cu: add_kernel (e += g: 12 B), the sign encoder on e,
                   // ef_update_kernel (e -= s sign(e): 8 B); decode: sum_signs_kernel reads
                   // every rank's words and writes out, then ef_reset_kernel (reads the p
                   // scale words; step() only, roundtrip() has no reset).
                   .gpu_work = [](const SchemeArgs&, const BucketLayout& l, int world) {
                     const int64_t n = l.numel();
                     return CodecWork{.encode = elementwise_work(n, 8, 4) + sign_encode_work(n) + elementwise_work(n, 4, 4),
                                      .decode = GpuWork{4.0 * n + sign_wire_bytes(n) * world, 2, 0, false},
                                      .roundtrip_extra = GpuWork{0, -1, 0, false}};
                   }}});
}

}  // namespace gcu::compress
