// Codec costs from the CUDA kernels' declared work (model/network/codec_estimate.h): a
// case derived by hand, and the check against the H100 round trips of
// data/hardware/codecs-h100.json (docs/described.md, "Codec costs on a catalog GPU").
#include "model/network/codec_estimate.h"

#include "compressors/registry.h"
#include "model/codec_cost.h"
#include "model/scheme_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace gcu::model::net {
namespace {

CodecRates ce_made_up_gpu() {
  CodecRates r;
  r.memory_bytes_per_s = 1e12;
  r.memory_efficiency = 0.5;
  r.launch_s = 5e-6;
  r.fp32_flops = 1e13;
  r.matmul_efficiency = 0.5;
  return r;
}

const CodecBench& ce_h100() {
  static const CodecBench b = load_codec_bench(std::string(GCU_SOURCE_DIR) + "/data/hardware/codecs-h100.json");
  return b;
}

// The documented tolerance: every scheme within 25% at both benchmarked sizes.
constexpr double kCeTolerance = 0.25;

}  // namespace

// fp16 (cuda/cast16.cu): encode reads 4 B and writes 2 B per element, decode the reverse,
// one launch each: a round trip of n elements is 12 n / (bw x eff) + 2 x launch.
TEST(CodecEstimate, Fp16ByHand) {
  const CodecRates r = ce_made_up_gpu();
  const CodecFit f = codec_fit_from_work("fp16", r);
  EXPECT_NEAR(f.encode.per_element_s, 6 / (1e12 * 0.5), 1e-20);
  EXPECT_NEAR(f.encode.fixed_s, 5e-6, 1e-12);
  EXPECT_NEAR(f.decode.per_element_s, 6 / (1e12 * 0.5), 1e-20);
  EXPECT_NEAR(f.decode.fixed_s, 5e-6, 1e-12);
  EXPECT_DOUBLE_EQ(f.decode.per_rank_element_s, 0);  // all-reduced: decoded once
  EXPECT_DOUBLE_EQ(f.encode.per_tensor_s, 0);        // one kernel over the whole bucket
  const int64_t n = 25'600'000;
  EXPECT_NEAR(encode_seconds(f.encode, n) + decode_seconds(f.decode, n, 1), 12.0 * n / 5e11 + 2 * 5e-6, 1e-9);
}

// topk's decode: the memset of the output per bucket, and per rank 16 B per kept pair
// plus one launch, charged per element of the reference bucket.
TEST(CodecEstimate, AllGatherDecodePerRank) {
  const CodecRates r = ce_made_up_gpu();
  const CodecFit f = codec_fit_from_work("topk:k=0.01", r);
  EXPECT_NEAR(f.decode.per_rank_element_s, 16 * 0.01 / 5e11 + 5e-6 / kPerRankReferenceElements, 1e-15);
  EXPECT_NEAR(f.decode.per_element_s, 4 / 5e11, 1e-15);
  EXPECT_NEAR(f.decode.fixed_s, 5e-6, 1e-9);  // the memset's launch
}

// PowerSGD: GEMM FLOPs at the FP32 peak x 0.5, and each further matrix adds its launches.
TEST(CodecEstimate, PowerSgdChargesFlopsAndPerMatrixLaunches) {
  CodecRates r = ce_made_up_gpu();
  const CodecFit with = codec_fit_from_work("powersgd:rank=4", r);
  r.fp32_flops = 0;
  const CodecFit without = codec_fit_from_work("powersgd:rank=4", r);
  // encode: 2 GEMMs of 2 m n r FLOPs: 16 FLOPs per element at 5 TFLOP/s.
  EXPECT_NEAR(with.encode.per_element_s - without.encode.per_element_s, 16 / 5e12, 1e-16);
  EXPECT_NEAR(with.decode.per_element_s - without.decode.per_element_s, 8 / 5e12, 1e-16);
  EXPECT_GE(with.encode.per_tensor_s, 2 * 5e-6);  // 2 GEMM launches per matrix
  EXPECT_GE(with.decode.per_tensor_s, 5e-6);
}

TEST(CodecEstimate, EveryRecommendedSchemeGetsAFitAndTheNoteSaysWhatIsMeasured) {
  hw::Gpu a100;
  a100.name = "a100-80gb";
  a100.memory_bytes_per_s = 2.039e12;
  a100.fp32_flops = 19.5e12;
  std::vector<std::string> notes;
  const auto fits = codec_fits_from_work(a100, &ce_h100(), &notes);
  for (const char* s : {"none", "fp16", "topk:k=0.001", "powersgd:rank=32", "thc", "qsgd", "mstopk:k=0.001"})
    EXPECT_TRUE(fits.count(compress::make_compressor(s)->spec())) << s;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("measured on one NVIDIA H100"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("assumed on the a100-80gb"), std::string::npos) << notes[0];
  // A slower memory costs more per element than the H100's own fit.
  hw::Gpu h100 = a100;
  h100.name = "h100-sxm";
  h100.memory_bytes_per_s = 3.35e12;
  const auto on_h100 = codec_fits_from_work(h100, &ce_h100(), nullptr);
  EXPECT_GT(fits.at("fp16").encode.per_element_s, on_h100.at("fp16").encode.per_element_s);
}

// The model's round trip against every measured one on the H100 (1,048,576 and
// 25,600,000 elements). The efficiency is measured at the larger size, so the small size
// checks the launch counts and the launch cost.
TEST(CodecEstimate, MatchesTheH100RoundTripsWithin25Percent) {
  const auto rows = check_codec_estimate(ce_h100());
  ASSERT_GE(rows.size(), 20u);
  std::printf("%-40s %10s %10s %10s %7s %5s\n", "scheme", "elements", "meas. ms", "model ms", "diff", "eff");
  double worst = 0;
  for (const auto& row : rows) {
    const double diff = row.model_s / row.measured_s - 1;
    worst = std::max(worst, std::fabs(diff));
    std::printf("%-40s %10lld %10.3f %10.3f %+6.0f%% %5.2f%s\n", row.spec.c_str(), static_cast<long long>(row.elements),
                row.measured_s * 1e3, row.model_s * 1e3, 100 * diff, row.memory_efficiency, row.minimum ? " min" : "");
    EXPECT_LE(std::fabs(diff), kCeTolerance) << row.spec << " at " << row.elements;
  }
  std::printf("worst: %.0f%%\n", 100 * worst);
}

}  // namespace gcu::model::net
