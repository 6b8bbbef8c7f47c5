// Tests of calibrate/collective_fit.h: the link level's bandwidth comes from the largest
// sizes, falls back to the whole sweep's secant (with a note) when latency noise hides
// their per-byte cost, and is a FitError when no per-byte cost shows at all.
#include "calibrate/collective_fit.h"

#include "model/units.h"

#include <gtest/gtest.h>

namespace gcu::calibrate {
namespace {

// An all-reduce sweep of 2 ranks, 4 B .. max_bytes x4, with the given fit segments.
CollectiveSweep sweep(double max_bytes, std::vector<Segment> segments) {
  CollectiveSweep s;
  s.world = 2;
  for (double b = 4; b <= max_bytes; b *= 4) {
    SweepRow r;
    r.bytes = static_cast<int64_t>(b);
    r.count = r.bytes / 4;
    s.rows.push_back(r);
  }
  s.fit.segments = std::move(segments);
  return s;
}

Segment seg(double lo, double hi, double intercept_s, double slope_s_per_byte) {
  Segment g;
  g.min_x = lo;
  g.max_x = hi;
  g.fit.intercept = intercept_s;
  g.fit.slope = slope_s_per_byte;
  return g;
}

TEST(LinkLevelFromSweeps, BandwidthFromTheLargestSizes) {
  // 2 ranks: T = 2 a + n b (factor 2 (p-1)/p = 1): a slope of 1e-9 s/B is 8 Gbit/s.
  const auto s = sweep(64 * model::kMiB, {seg(0, 65536, 2e-3, 0), seg(65536, model::kInf, 2e-3, 1e-9)});
  std::string note;
  const auto level = link_level_from_sweeps({s}, &note);
  EXPECT_NEAR(level.bandwidth_gbps, 8.0, 1e-9);
  EXPECT_NEAR(level.alpha_s, 1e-3, 1e-12);
  EXPECT_TRUE(note.empty()) << note;
}

TEST(LinkLevelFromSweeps, FlatLargestSegmentFallsBackToTheSecantWithANote) {
  // Latency noise: the fit rises to 3 ms at 64 KiB, then its last segment is flat.
  const double k64 = 65536;
  const auto s = sweep(model::kMiB, {seg(0, k64, 2e-3, 1e-3 / k64), seg(k64, model::kInf, 3e-3, 0)});
  std::string note;
  const auto level = link_level_from_sweeps({s}, &note);
  const double secant = (3e-3 - (2e-3 + 4 * 1e-3 / k64)) / (model::kMiB - 4);
  EXPECT_NEAR(level.bandwidth_gbps, model::gbps_from_beta(secant), 1e-6 * model::gbps_from_beta(secant));
  EXPECT_LT(level.bandwidth_gbps, kMaxPlausibleGbps);
  EXPECT_NE(note.find("secant"), std::string::npos) << note;
  EXPECT_NE(note.find("--max-bytes"), std::string::npos) << note;
}

TEST(LinkLevelFromSweeps, NoPerByteCostAnywhereIsAFitErrorNamingTheFix) {
  const auto s = sweep(model::kMiB, {seg(0, model::kInf, 2e-3, 0)});
  try {
    link_level_from_sweeps({s});
    ADD_FAILURE() << "a flat sweep must not give a bandwidth";
  } catch (const FitError& e) {
    EXPECT_NE(std::string(e.what()).find("raise --max-bytes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcu::calibrate
