// Tests of calibrate/collective_fit.h: the link level's bandwidth comes from the largest
// sizes, falls back to the whole sweep's secant (with a note) when latency noise hides
// their per-byte cost, and is a FitError when no per-byte cost shows at all; the profile
// carries one continuous curve per collective, which never falls as the size grows; and
// ranges fitted as separate lines (validate's per-link fits) are lowered where one ends
// above the next one's start.
#include "calibrate/collective_fit.h"

#include "model/collectives.h"
#include "model/units.h"

#include <gtest/gtest.h>

namespace gcu::calibrate {
namespace {

using compress::CollectiveKind;

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
  std::vector<std::string> notes;
  const auto level = link_level_from_sweeps({s}, &notes);
  // The profile's curve through that fit at the sweep's sizes (its 66 us step at 64 KiB
  // smoothed): the large sizes' slope and the small sizes' latency, to 0.1%.
  EXPECT_TRUE(level.curves.count("allreduce"));
  EXPECT_NEAR(level.bandwidth_gbps, 8.0, 0.008);
  EXPECT_NEAR(level.alpha_s, 1e-3, 2e-6);
  EXPECT_TRUE(notes.empty()) << notes.front();
}

TEST(LinkLevelFromSweeps, FlatLargestSegmentFallsBackToTheSecantWithANote) {
  // Latency noise: the fit rises to 3 ms at 64 KiB, then its last segment is flat.
  const double k64 = 65536;
  const auto s = sweep(model::kMiB, {seg(0, k64, 2e-3, 1e-3 / k64), seg(k64, model::kInf, 3e-3, 0)});
  std::vector<std::string> notes;
  const auto level = link_level_from_sweeps({s}, &notes);
  ASSERT_FALSE(notes.empty());
  const std::string& note = notes.front();
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

// The model's time for n bytes through the ranges (ring formulas, as the profile is used).
double model_s(const std::vector<model::SizeRangeFit>& ranges, CollectiveKind k, int p, double n) {
  model::LinkLevel level;
  level.bandwidth_gbps = 10;
  level.collectives[model::collective_key(k)] = ranges;
  const model::LinkCost link(level, "inter");
  return model::flat_collective_s(k, model::Algorithm::Ring, p, n, link.at(k, n));
}

TEST(MakeNondecreasing, TheRecordedCnnCalibrationFollowsTheLargeSizesLine) {
  // cpu-2rank-cnn-tta-pinned's all-reduce fit, fitted on noisy means: 256 B-
  // 128 KiB at 0.433 ms + 13 ns/B, 128 KiB-1 MiB at 12 ns/B with no latency, from 1 MiB
  // 0.816 ms + 1.03 ns/B. At 1 MiB the middle range says 12.6 ms, the last 2.71 ms.
  const double k128 = 131072, m1 = model::kMiB;
  std::vector<model::SizeRangeFit> r = {
      {0, 256, 0.42e-3, 4.2e-6}, {256, k128, 0.433e-3, 1.3e-8}, {k128, m1, 0, 1.2e-8}, {m1, model::kInf, 0.816e-3, 1.03e-9}};
  const auto before = r;
  const auto notes = make_nondecreasing(r, CollectiveKind::AllReduce, 2);
  // The middle range: its own line up to where the last one's crosses it, 2 x 0.816 ms =
  // (12 - 1.03) ns/B x n, n = 148.8 KB (145 KiB); that line from there. The ranges below
  // 128 KiB also end above their next one's start (1.9 ms at 256 B against 0.87; 2.57 ms
  // at 128 KiB against 1.57), but those lines are not from the trusted sizes: left alone.
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("all-reduce fit up to 1 MiB"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("from 145 KiB it follows the larger sizes' line"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("78% lower at 1 MiB"), std::string::npos) << notes[0];
  const double cross = 2 * 0.816e-3 / (1.2e-8 - 1.03e-9);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_NEAR(r[3].min_bytes, cross, 1);
  double last = 0;
  for (double n = 1; n < 64 * m1; n *= 1.05) {
    const double t = model_s(r, CollectiveKind::AllReduce, 2, n);
    const double old = model_s(before, CollectiveKind::AllReduce, 2, n);
    if (n < cross || n >= m1) EXPECT_DOUBLE_EQ(t, old) << n;
    else EXPECT_LT(t, old) << n;
    if (n >= k128) EXPECT_GE(t, last * (1 - 1e-12)) << n;
    last = n >= k128 ? t : 0;
  }
  // The CNN's 827 KB bucket: the last range's line, 2.48 ms instead of 9.9 ms.
  EXPECT_NEAR(model_s(r, CollectiveKind::AllReduce, 2, 827e3), 2 * 0.816e-3 + 827e3 * 1.03e-9, 1e-12);
}

TEST(MakeNondecreasing, ARangeWhollyAboveTheNextLineIsHeldAtItsStartingCost) {
  // 4 ranks, all-gather (3 steps, 3 n b): the middle range is flat at 5 ms up to 2 MiB,
  // the next starts at 0.3 ms + 6.3 ms... at 0.3 + 3 x 2 MiB x 0.5 ns = 3.45 ms.
  const double m2 = 2 * model::kMiB;
  std::vector<model::SizeRangeFit> r = {{0, 1000, 1e-4, 1e-9}, {1000, m2, 5e-3 / 3, 1e-18}, {m2, model::kInf, 1e-4, 0.5e-9}};
  const double cap = 3e-4 + 3 * m2 * 0.5e-9;
  const auto notes = make_nondecreasing(r, CollectiveKind::AllGather, 4);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("from 1000 B it is held at 3.45 ms"), std::string::npos) << notes[0];
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r[1].min_bytes, 1000);
  EXPECT_NEAR(model_s(r, CollectiveKind::AllGather, 4, 5e5), cap, 1e-9);
  double last = 0;
  for (double n = 1; n < 1e8; n *= 1.2) {
    const double t = model_s(r, CollectiveKind::AllGather, 4, n);
    EXPECT_GE(t, last * (1 - 1e-12)) << n;
    last = t;
  }
}

TEST(MakeNondecreasing, ALowSizeBelowTheTrustedRegionDoesNotPullTheSmallerOnesDown) {
  // cpu-4rank-cnn-linkfits' shape: a range through one low 256 KiB mean (4.4 ms) below
  // a range ending at 15.9 ms. Lowering to it would take every smaller size to 4.4 ms.
  const double k32 = 32768, k256 = 262144, m1 = model::kMiB;
  std::vector<model::SizeRangeFit> r = {{0, k32, 2e-3, 1e-8}, {k32, k256, 0, 3e-8}, {k256, m1, 0.7e-3, 1e-9},
                                        {m1, model::kInf, 1e-3, 2e-9}};
  const auto before = r;
  EXPECT_TRUE(make_nondecreasing(r, CollectiveKind::AllReduce, 4).empty());
  ASSERT_EQ(r.size(), before.size());
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].alpha_s, before[i].alpha_s);
  // A lower trust threshold lets it: the range up to 256 KiB is lowered.
  EXPECT_FALSE(make_nondecreasing(r, CollectiveKind::AllReduce, 4, k256).empty());
}

TEST(MakeNondecreasing, RisingFitsAndGapsAreLeftAlone) {
  std::vector<model::SizeRangeFit> rising = {{0, 1e4, 1e-4, 1e-8}, {1e4, 1e6, 2e-4, 1e-9}, {1e6, model::kInf, 5e-4, 1e-9}};
  const auto before = rising;
  EXPECT_TRUE(make_nondecreasing(rising, CollectiveKind::AllReduce, 4).empty());
  ASSERT_EQ(rising.size(), before.size());
  for (size_t i = 0; i < rising.size(); ++i) {
    EXPECT_EQ(rising[i].min_bytes, before[i].min_bytes);
    EXPECT_EQ(rising[i].alpha_s, before[i].alpha_s);
  }
  // A gap (the base link between): not two neighbouring ranges, nothing to compare.
  std::vector<model::SizeRangeFit> gap = {{0, 1e4, 1e-2, 1e-8}, {2e4, model::kInf, 1e-5, 1e-9}};
  EXPECT_TRUE(make_nondecreasing(gap, CollectiveKind::AllReduce, 2).empty());
  EXPECT_EQ(gap.size(), 2u);
}

// A fit that falls at 1 MiB (noise: 12.6 ms just below, 2.6 ms at it): the profile's curve
// never falls with size, needs no correction, and keeps the large sizes' bandwidth.
TEST(LinkLevelFromSweeps, TheCurveNeverFallsWhereTheFitDoes) {
  const double m1 = model::kMiB;
  const auto s = sweep(64 * m1, {seg(0, m1, 0, 1.2e-8), seg(m1, model::kInf, 1.6e-3, 1e-9)});
  std::vector<std::string> notes;
  const auto level = link_level_from_sweeps({s}, &notes);
  EXPECT_TRUE(notes.empty()) << notes.front();
  const model::LinkCost link(level, "inter");
  const auto t = [&](double n) {
    return model::flat_collective_s(CollectiveKind::AllReduce, model::Algorithm::Ring, 2, n,
                                    link.at(CollectiveKind::AllReduce, n));
  };
  for (double n = 4; n < 64 * m1; n *= 1.3) EXPECT_LE(t(n), t(n * 1.3) * (1 + 1e-12)) << n;
  EXPECT_GT(level.bandwidth_gbps, 6.0);  // the large sizes' 1 ns/B (8 Gbit/s), bent by the fall
}

}  // namespace
}  // namespace gcu::calibrate
