// "qsgd" (and the shared LevelCompressor used by "terngrad") on the CPU (qsgd.h).
#include "qsgd.h"

#include "bitpack.h"
#include "half.h"
#include "rng.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gcu::compress {

LevelCompressor::LevelCompressor(bool l2, int64_t levels, int64_t bucket, uint64_t seed)
    : l2_(l2), levels_(levels), bucket_(bucket), seed_(seed), width_(bits::code_width(levels)) {
  if (bucket < 0)
    throw CompressorError("bucket=" + std::to_string(bucket) + " must be >= 0 (0 = per tensor)");
}

std::vector<CollectiveCall> LevelCompressor::plan(const BucketLayout& layout, int) const {
  const int64_t n = layout.numel();
  if (n == 0) return {};
  const int64_t segs = static_cast<int64_t>(bits::segments_for(layout, bucket_).size()) - 1;
  return {{CollectiveKind::AllGather, WireType::U32, segs + bits::code_words(n, width_),
           "scales+codes"}};
}

uint64_t LevelCompressor::next_key(int64_t bucket_index, int rank) {
  const uint64_t step = counter_[bucket_index]++;
  return rng::stream_key(seed_, static_cast<uint64_t>(bucket_index), step, static_cast<uint64_t>(rank));
}

void LevelCompressor::encode(const float* x, const BucketLayout& layout, uint64_t key) {
  seg_ = bits::segments_for(layout, bucket_);
  const int64_t n = layout.numel();
  const int64_t S = static_cast<int64_t>(seg_.size()) - 1;
  send_.resize(static_cast<size_t>(S + bits::code_words(n, width_)));
  scale_.resize(static_cast<size_t>(S));
  bits::encode_segments(x, seg_, l2_, levels_, width_, key, scale_.data(), send_.data() + S);
  for (int64_t k = 0; k < S; ++k) send_[k] = float_bits(scale_[k]);
}

void LevelCompressor::decode(const uint32_t* all, int p, float* out) {
  const int64_t S = static_cast<int64_t>(seg_.size()) - 1;
  const int64_t n = seg_.back();
  const int64_t stride = S + bits::code_words(n, width_);
  for (int r = 0; r < p; ++r)
    for (int64_t k = 0; k < S; ++k)
      if (!std::isfinite(bits_float(all[r * stride + k]))) {
        std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
        return;
      }
  std::vector<float>& scale = dscale_;
  scale.resize(static_cast<size_t>(S));
  for (int r = 0; r < p; ++r) {
    for (int64_t k = 0; k < S; ++k) scale[k] = bits_float(all[r * stride + k]);
    bits::decode_levels(all + r * stride + S, seg_, scale.data(), levels_, width_,
                        1.0f / static_cast<float>(p), r > 0, out);
  }
}

void LevelCompressor::step(GradBucket b, Communicator& comm) { step_with_local(b, comm, nullptr); }

void LevelCompressor::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return;
  encode(b.data, *b.layout, next_key(b.index, comm.rank()));
  if (local) decode(send_.data(), 1, local);
  const int p = comm.world_size();
  recv_.resize(send_.size() * static_cast<size_t>(p));
  comm.all_gather(send_.data(), recv_.data(), static_cast<int64_t>(send_.size()), WireType::U32);
  decode(recv_.data(), p, b.data);
}

void LevelCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                                const BucketLayout& layout) {
  if (layout.numel() == 0) return;
  encode(in, layout, next_key(bucket_index, 0));
  decode(send_.data(), 1, out);
}

std::string QsgdCompressor::spec() const {
  std::string s = "qsgd:levels=" + std::to_string(levels_);
  if (bucket_ != 0) s += ",bucket=" + std::to_string(bucket_);
  if (seed_ != 0) s += ",seed=" + std::to_string(seed_);
  return s;
}

void register_qsgd(Registry& r) {
  r.add({.name = "qsgd",
         .params = "levels=<s, default 127 (8-bit codes)>, bucket=<elements per norm, default 0 = per tensor>, "
                   "seed=<default 0>",
         .summary = "QSGD stochastic quantization to s levels of the L2 norm; unbiased; all-gather",
         .cpu = [](const SchemeArgs& a) {
           const int64_t levels = a.get_positive_int("levels", 127);
           const int64_t bucket = a.get_int("bucket", 0);
           const uint64_t seed = a.get_seed();
           if (levels > 32767)
             throw CompressorError("qsgd: levels=" + std::to_string(levels) + " is out of range [1, 32767]");
           if (bucket < 0)
             throw CompressorError("qsgd: bucket=" + std::to_string(bucket) + " must be >= 0 (0 = per tensor)");
           return std::make_unique<QsgdCompressor>(levels, bucket, seed);
         },
         .facts = {.recommend_grid = {"qsgd"}, .convergence_specs = {"qsgd"}, .cost_grid = {"qsgd:levels={1|15}"},
                   // cuda/levels.cu (L2-norm scales).
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int world) {
                     return level_codec_work(l, world, bits::code_width(a.get_int("levels", 127)), a.get_int("bucket", 0));
                   }}});
}

}  // namespace gcu::compress
