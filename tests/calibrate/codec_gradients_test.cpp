// Tests of calibrate/codec_gradients.h: a codec timed on a gradient set's DDP buckets,
// compared with a given sweep fit; the factor's guards; scaled_fit's arithmetic.
#include "calibrate/codec_gradients.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::calibrate {
namespace {

// Two tensors: a (1.2 MB, its own bucket after the 1 MiB first bucket) and b; most of a is
// exactly zero, as in ResNet-18's large buckets.
GradientSet zero_heavy_set(int snapshots, int64_t a_elements = 300000) {
  GradientSet g;
  g.tensors = {{"a", {a_elements}}, {"b", {100}}};
  std::vector<float> s(a_elements + 100, 0.f);
  for (size_t i = 0; i < s.size(); i += 8) s[i] = std::sin(0.1 * i);
  g.snapshots.assign(snapshots, s);
  return g;
}

TEST(CodecGradients, TimesEveryBucketOfEverySnapshotAgainstTheFit) {
  model::CodecFit fit;
  fit.encode = {0.1, 0};  // 0.1 s per bucket: far more than top-k of 300k elements takes
  fit.decode = {0, 0, 0};
  const auto s = time_codec_on_gradients("topk:k=0.01", zero_heavy_set(3), fit, 0.0, 2);
  EXPECT_EQ(s.buckets, 2);
  EXPECT_EQ(s.snapshots, 3);
  EXPECT_DOUBLE_EQ(s.fit_encode_s, 0.2);
  EXPECT_GT(s.encode_s, 0);
  EXPECT_LT(s.encode_s, 0.1);
  EXPECT_DOUBLE_EQ(s.encode_factor, s.encode_s / s.fit_encode_s);
  EXPECT_EQ(s.decode_factor, 1.0);  // a fit of 0 s: too small to compare
}

TEST(CodecGradients, UnknownWireExtraLeavesDecodeUnscaled) {
  model::CodecFit fit;
  fit.encode = {0.01, 0};
  fit.decode = {0.05, 1e-6, 0};  // mostly a low-precision all-reduce's conversion, in an old file
  const GradientSet big = zero_heavy_set(1, 4000000);  // fp16's decode: > 20 us to compare
  const auto known = time_codec_on_gradients("fp16", big, fit, 1e-6, 2);
  EXPECT_NEAR(known.fit_decode_s, 0.1, 1e-12);  // 2 buckets x 0.05 s; the per-element part is wire extra
  EXPECT_LT(known.decode_factor, 1.0) << describe(known);
  const auto unknown = time_codec_on_gradients("fp16", big, fit, std::nullopt, 2);
  EXPECT_EQ(unknown.decode_factor, 1.0);
  EXPECT_LT(unknown.encode_factor, 1.0);
}

TEST(CodecGradients, BadInputIsAClearError) {
  model::CodecFit fit;
  EXPECT_THROW(time_codec_on_gradients("topk:k=0.01", GradientSet{}, fit, 0.0, 2), FitError);
  GradientSet bad = zero_heavy_set(2);
  bad.snapshots[1].pop_back();
  EXPECT_THROW(time_codec_on_gradients("topk:k=0.01", bad, fit, 0.0, 2), FitError);
  EXPECT_THROW(time_codec_on_gradients("no-such-scheme", zero_heavy_set(1), fit, 0.0, 2), std::exception);
}

TEST(CodecGradients, ScaledFitKeepsTheWireExtraUnscaled) {
  model::CodecFit fit;
  fit.encode = {1e-5, 2e-9};
  fit.decode = {2e-5, 3e-9, 4e-10};
  CodecGradientState s;
  s.encode_factor = 2;
  s.decode_factor = 0.5;
  const auto f = scaled_fit(fit, 1e-9, s);
  EXPECT_DOUBLE_EQ(f.encode.fixed_s, 2e-5);
  EXPECT_DOUBLE_EQ(f.encode.per_element_s, 4e-9);
  EXPECT_DOUBLE_EQ(f.decode.fixed_s, 1e-5);
  EXPECT_DOUBLE_EQ(f.decode.per_element_s, 2e-9 * 0.5 + 1e-9);
  EXPECT_DOUBLE_EQ(f.decode.per_rank_element_s, 2e-10);
  EXPECT_DOUBLE_EQ(scaled_fit(fit, std::nullopt, s).decode.per_element_s, 1.5e-9);
  EXPECT_NE(describe(s).find("x2.00"), std::string::npos);
}

}  // namespace
}  // namespace gcu::calibrate
