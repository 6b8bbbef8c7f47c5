// "terngrad" on the CPU (terngrad.h): LevelCompressor with one level and max-norm scales.
#include "terngrad.h"

#include "bitpack.h"

namespace gcu::compress {

std::string TernGradCompressor::spec() const {
  std::string s = "terngrad";
  std::string sep = ":";
  if (bucket_ != 0) { s += sep + "bucket=" + std::to_string(bucket_); sep = ","; }
  if (seed_ != 0) s += sep + "seed=" + std::to_string(seed_);
  return s;
}

void register_terngrad(Registry& r) {
  r.add({.name = "terngrad",
         .params = "bucket=<elements per scale, default 0 = per tensor>, seed=<default 0>",
         .summary = "TernGrad: stochastic ternary {-1,0,1} x max|g|; unbiased; all-gather of 2-bit codes",
         .cpu = [](const SchemeArgs& a) {
           const int64_t bucket = a.get_int("bucket", 0);
           if (bucket < 0)
             throw CompressorError("terngrad: bucket=" + std::to_string(bucket) + " must be >= 0 (0 = per tensor)");
           return std::make_unique<TernGradCompressor>(bucket, a.get_seed());
         },
         .facts = {.recommend_grid = {"terngrad"}, .convergence_specs = {"terngrad"},
                   // cuda/levels.cu (max-norm scales, one level).
                   .gpu_work = [](const SchemeArgs& a, const BucketLayout& l, int world) {
                     return level_codec_work(l, world, bits::code_width(1), a.get_int("bucket", 0));
                   }}});
}

}  // namespace gcu::compress
