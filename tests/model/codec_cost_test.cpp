// Cost fits of parameter values that were not measured (model/codec_cost.h): exact at the
// measured points, piecewise linear between them (log10 for fractions), extrapolation and
// a single point with an assumption line, ef(...) overhead (measured or assumed), and the
// clear error when the scheme's family was never measured.
#include "model/codec_cost.h"
#include "model/profile_json.h"
#include "model/scheme_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace gcu::model {
namespace {

CodecFit fit(double e_pe, double d_pe, double d_rank = 0) { return {{1e-5, e_pe}, {2e-5, d_pe, d_rank}, 1000}; }

// PowerSGD at rank 2 and 4 (canonical specs), encode per element 1 ns and 3 ns.
std::map<std::string, CodecFit> powersgd_fits() {
  return {{"powersgd:rank=2,warm_start=true,min_rate=2", fit(1e-9, 4e-10)},
          {"powersgd:rank=4,warm_start=true,min_rate=2", fit(3e-9, 8e-10)}};
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  for (const auto& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

TEST(CodecCost, InterpolateFitIsPiecewiseLinearAndClamped) {
  const std::vector<ParamPoint> pts = {{4, fit(3e-9, 8e-10)}, {2, fit(1e-9, 4e-10)}, {8, fit(4e-9, 1e-9)}};
  EXPECT_DOUBLE_EQ(interpolate_fit(pts, 2, false).encode.per_element_s, 1e-9);  // exact at points
  EXPECT_DOUBLE_EQ(interpolate_fit(pts, 4, false).encode.per_element_s, 3e-9);
  EXPECT_NEAR(interpolate_fit(pts, 3, false).encode.per_element_s, 2e-9, 1e-21);   // midpoint of 2..4
  EXPECT_NEAR(interpolate_fit(pts, 6, false).decode.per_element_s, 9e-10, 1e-21);  // midpoint of 4..8
  // Above: line through 4 and 8: 3 + (16-4) * 0.25 = 6 ns. Below: through 2 and 4 (1 ns per
  // rank): 1 - 1.5 = -0.5 ns -> 0.
  EXPECT_NEAR(interpolate_fit(pts, 16, false).encode.per_element_s, 6e-9, 1e-21);
  EXPECT_EQ(interpolate_fit(pts, 0.5, false).encode.per_element_s, 0.0);
  EXPECT_DOUBLE_EQ(interpolate_fit(pts, 0.5, false).encode.fixed_s, 1e-5);  // equal coefficients stay
  // log10: k = sqrt(0.01 * 0.1) is halfway between 0.01 and 0.1.
  const std::vector<ParamPoint> ks = {{0.01, fit(1e-9, 0)}, {0.1, fit(3e-9, 0)}};
  EXPECT_NEAR(interpolate_fit(ks, std::sqrt(0.001), true).encode.per_element_s, 2e-9, 1e-21);
  EXPECT_DOUBLE_EQ(interpolate_fit({{4, fit(5e-9, 0)}}, 64, false).encode.per_element_s, 5e-9);
}

TEST(CodecCost, RankBetweenMeasuredRanksLiesBetweenThemWithANote) {
  const auto f = powersgd_fits();
  const auto r = resolve_codec_fit("powersgd:rank=3,warm_start=true,min_rate=2", f);
  EXPECT_GT(r.fit.encode.per_element_s, 1e-9);
  EXPECT_LT(r.fit.encode.per_element_s, 3e-9);
  EXPECT_NEAR(r.fit.encode.per_element_s, 2e-9, 1e-21);
  EXPECT_NEAR(r.fit.decode.per_element_s, 6e-10, 1e-21);
  EXPECT_TRUE(r.assumptions.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(mentions(r.notes, "interpolated (linear in rank) between rank=2 and rank=4")) << r.notes[0];
  // Exact at a measured rank, with nothing to say.
  const auto e = resolve_codec_fit("powersgd:rank=4,warm_start=true,min_rate=2", f);
  EXPECT_DOUBLE_EQ(e.fit.encode.per_element_s, 3e-9);
  EXPECT_TRUE(e.notes.empty() && e.assumptions.empty());
}

TEST(CodecCost, ExtrapolationAddsAnAssumptionLine) {
  const auto r = resolve_codec_fit("powersgd:rank=8,warm_start=true,min_rate=2", powersgd_fits());
  EXPECT_NEAR(r.fit.encode.per_element_s, 7e-9, 1e-21);  // 3 + (8-4)/2 * 2 ns
  ASSERT_EQ(r.assumptions.size(), 1u);
  EXPECT_TRUE(mentions(r.assumptions, "powersgd:rank=8,warm_start=true,min_rate=2 extrapolated")) << r.assumptions[0];
  EXPECT_TRUE(mentions(r.assumptions, "from rank=2..4 measured")) << r.assumptions[0];
  // Other parameters must match: warm_start=false has no family member to lean on.
  EXPECT_THROW(resolve_codec_fit("powersgd:rank=3,warm_start=false,min_rate=2", powersgd_fits()), ModelError);
}

TEST(CodecCost, UnknownFamilyErrorsNamingTheField) {
  try {
    resolve_codec_fit("qsgd:levels=7", powersgd_fits());
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("compressors.\"qsgd:levels=7\""), std::string::npos) << e.what();
  }
}

TEST(CodecCost, EfOverheadMeasuredOrAssumedFromTheCast) {
  std::map<std::string, CodecFit> f = {{"topk:k=0.01", fit(2e-9, 1e-9)}, {"fp16", fit(6e-12, 6e-12)}};
  // Assumed: 16 and 12 bytes/element at the cast's 6 bytes per 6 ps = 1 ps/byte.
  auto r = resolve_codec_fit("ef(topk:k=0.01)", f);
  EXPECT_NEAR(r.fit.encode.per_element_s, 2e-9 + 16e-12, 1e-21);
  EXPECT_NEAR(r.fit.decode.per_element_s, 1e-9 + 12e-12, 1e-21);
  EXPECT_DOUBLE_EQ(r.fit.encode.fixed_s, 1e-5);
  EXPECT_TRUE(mentions(r.assumptions, "error-feedback overhead of ef(topk:k=0.01)")) << r.assumptions.size();
  // Measured: ef(topk:k=0.01) - topk:k=0.01 = +1 ns encode, +0.5 ns decode, used for ef(topk:k=0.1).
  f["ef(topk:k=0.01)"] = fit(3e-9, 1.5e-9);
  f["topk:k=0.1"] = fit(4e-9, 1e-9);
  r = resolve_codec_fit("ef(topk:k=0.1)", f);
  EXPECT_NEAR(r.fit.encode.per_element_s, 5e-9, 1e-21);
  EXPECT_NEAR(r.fit.decode.per_element_s, 1.5e-9, 1e-21);
  EXPECT_TRUE(r.assumptions.empty());
  EXPECT_TRUE(mentions(r.notes, "measured (ef(topk:k=0.01) - topk:k=0.01)"));
}

// Collective floors: a derived k takes the nearest measured k's (in log10 k) with an
// assumption line; ef(X) keeps X's; a family without floors adds nothing.
TEST(CodecCost, DerivedFitsCarryTheNearestMeasuredFloors) {
  auto floor = [](double s) { return CollectiveFloor{4, {1000, 100000}, {s, 2 * s}, 0}; };
  std::map<std::string, CodecFit> f = {{"topk:k=0.01", fit(2e-9, 1e-9)}, {"topk:k=0.1", fit(4e-9, 1e-9)},
                                       {"fp16", fit(6e-12, 6e-12)}};
  f["topk:k=0.01"].allgather_floor = floor(0.008);
  f["topk:k=0.1"].allgather_floor = floor(0.020);
  // log10(0.02) is nearer log10(0.01) than log10(0.1); log10(0.05) nearer 0.1.
  auto r = resolve_codec_fit("topk:k=0.02", f);
  ASSERT_TRUE(r.fit.allgather_floor);
  EXPECT_DOUBLE_EQ(r.fit.allgather_floor->seconds[0], 0.008);
  EXPECT_EQ(r.fit.allgather_floor->world, 4);
  EXPECT_FALSE(r.fit.allreduce_floor);
  EXPECT_TRUE(mentions(r.assumptions, "allgather_floor of topk:k=0.02 assumed equal to the measured k=0.01's"));
  EXPECT_DOUBLE_EQ(resolve_codec_fit("topk:k=0.05", f).fit.allgather_floor->seconds[0], 0.020);
  // Only the measured value with a floor counts: k=0.01's removed, k=0.1's is taken.
  f["topk:k=0.01"].allgather_floor.reset();
  r = resolve_codec_fit("topk:k=0.02", f);
  ASSERT_TRUE(r.fit.allgather_floor);
  EXPECT_DOUBLE_EQ(r.fit.allgather_floor->seconds[0], 0.020);
  // ef(X) sends what X sends: X's floor, measured or derived.
  const auto e = resolve_codec_fit("ef(topk:k=0.1)", f);
  ASSERT_TRUE(e.fit.allgather_floor);
  EXPECT_DOUBLE_EQ(e.fit.allgather_floor->seconds[1], 0.040);
  EXPECT_TRUE(mentions(e.notes, "collective floors of ef(topk:k=0.1): those of topk:k=0.1"));
  EXPECT_TRUE(resolve_codec_fit("ef(topk:k=0.02)", f).fit.allgather_floor.has_value());
  // No floor anywhere: nothing carried, nothing said about floors.
  f["topk:k=0.1"].allgather_floor.reset();
  r = resolve_codec_fit("topk:k=0.02", f);
  EXPECT_FALSE(r.fit.allgather_floor);
  EXPECT_FALSE(mentions(r.assumptions, "floor"));
}

Profile shipped(const char* name) {
  std::ifstream in(std::string(GCU_SOURCE_DIR) + "/data/profiles/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return profile_from_string(s.str());
}

TEST(CodecCost, ShippedV100ProfileCostsEfTopkcAndUnmeasuredRanks) {
  const Profile p = shipped("v100-resnet50.json");
  const auto bs = plan_buckets(p.model.tensors, BucketOptions::from(p.ddp));
  const auto ef = plan_scheme("ef(topkc:k=0.01,chunk=256)", bs, 16, p.compressors);
  const auto in = plan_scheme("topkc:k=0.01,chunk=256", bs, 16, p.compressors);
  double ef_s = 0, in_s = 0;
  for (size_t i = 0; i < bs.size(); ++i) {
    ef_s += ef.buckets[i].encode_s + ef.buckets[i].decode_s;
    in_s += in.buckets[i].encode_s + in.buckets[i].decode_s;
  }
  EXPECT_GT(ef_s, in_s);
  EXPECT_LT(ef_s, in_s + 0.01);  // one memory-bound pass or two over 25.6 M floats: well under 10 ms
  EXPECT_EQ(ef.wire_bytes, in.wire_bytes);
  EXPECT_TRUE(mentions(ef.cost_assumptions, "error-feedback overhead"));
  EXPECT_TRUE(in.cost_assumptions.empty() && in.cost_notes.empty());

  const auto r3 = plan_scheme("powersgd:rank=3", bs, 16, p.compressors);
  const auto r2 = plan_scheme("powersgd:rank=2", bs, 16, p.compressors);
  const auto r4 = plan_scheme("powersgd:rank=4", bs, 16, p.compressors);
  EXPECT_GT(r3.buckets[0].encode_s, r2.buckets[0].encode_s);
  EXPECT_LT(r3.buckets[0].encode_s, r4.buckets[0].encode_s);
  EXPECT_EQ(r3.cost_notes.size(), 1u);
  const auto r64 = plan_scheme("powersgd:rank=64", bs, 16, p.compressors);
  EXPECT_TRUE(mentions(r64.cost_assumptions, "from rank=16..32 measured"));
  EXPECT_GT(r64.buckets[0].encode_s, 0.0);
}

}  // namespace
}  // namespace gcu::model
