// Tests of validate/link_fits.h: a shaped link's own sweep replaces the profile's costs from
// kLinkFitsMinBytesAllReduce (all-reduce) or kLinkFitsMinBytes (other kinds) up; smaller messages keep the profile's latency at
// the measured rate; a kind the link did not measure keeps the profile at that rate.
#include "validate/link_fits.h"

#include "model/collectives.h"
#include "simulate/error.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gcu::validate {
namespace {

using compress::CollectiveKind;

// 2 ranks; T = A + B x (x: nccl-tests bytes, all-gather: the output), 64 KiB .. 16 MiB.
calibrate::CollectiveSweep line(CollectiveKind k, double A, double B) {
  calibrate::CollectiveSweep s;
  s.kind = k;
  s.world = 2;
  for (int64_t bytes = 64 << 10; bytes <= (16 << 20); bytes *= 2) {
    calibrate::SweepRow r;
    r.bytes = bytes;
    r.count = bytes / 4;
    const double t = A + B * double(bytes);
    r.time_s.median = r.time_s.mean = r.time_s.mean_w95 = r.time_s.p10 = r.time_s.p90 = r.time_s.min = r.time_s.max = t;
    r.time_s.n = 5;
    r.calls = 5;
    s.rows.push_back(r);
  }
  return s;
}

model::Profile base_profile() {
  model::Profile p;
  p.cluster.nodes = 2;
  p.cluster.gpus_per_node = 1;
  p.cluster.inter = {10.0, 50e-6, {{"allreduce", {{0, model::kInf, 100e-6, 1e-10}}}}};
  p.cluster.intra = p.cluster.inter;
  return p;
}

calibrate::CalibrationState link_state() {
  calibrate::CalibrationState st;
  st.meta.world = 2;
  st.meta.fit_statistic = "median";
  calibrate::CollectivesState c;
  c.world = 2;
  c.sweeps = {line(CollectiveKind::AllReduce, 300e-6, 8e-9), line(CollectiveKind::AllGather, 200e-6, 16e-9)};
  st.collectives = c;
  return st;
}

TEST(LinkFits, LargeMessagesTakeTheLinksOwnLinePerKind) {
  const model::Profile p = profile_for_link(base_profile(), link_state(), 1.0);
  const model::LinkCost link(p.cluster.inter, "inter");
  // All-gather of 4 MiB per rank: the link's line at its 8 MiB output, not 1 Gbit/s.
  const double n = 4 << 20;
  const double t = model::flat_collective_s(CollectiveKind::AllGather, model::Algorithm::Ring, 2, n,
                                            link.at(CollectiveKind::AllGather, n));
  // (the long flows' rate: on a straight sweep the line's own, its latency
  // spread over the largest sizes' bytes)
  EXPECT_NEAR(t / (200e-6 + 16e-9 * 2 * n), 1.0, 1e-3);
  const double tr = model::flat_collective_s(CollectiveKind::AllReduce, model::Algorithm::Ring, 2, n,
                                             link.at(CollectiveKind::AllReduce, n));
  EXPECT_NEAR(tr / (300e-6 + 8e-9 * n), 1.0, 1e-6);
  EXPECT_EQ(p.cluster.intra.collectives.size(), p.cluster.inter.collectives.size());
}

TEST(LinkFits, SmallMessagesKeepTheProfilesLatencyAtTheMeasuredRate) {
  const model::Profile p = profile_for_link(base_profile(), link_state(), 1.0);
  const model::LinkCost link(p.cluster.inter, "inter");
  const auto small_ar = link.at(CollectiveKind::AllReduce, 64 << 10);
  EXPECT_DOUBLE_EQ(small_ar.alpha_s, 100e-6);  // the profile's all-reduce range
  EXPECT_NEAR(small_ar.beta_s_per_byte, 8e-9, 1e-15);  // 1 Gbit/s
  const auto small_ag = link.at(CollectiveKind::AllGather, 64 << 10);
  EXPECT_DOUBLE_EQ(small_ag.alpha_s, 50e-6);  // no all-gather range in the profile: its level's alpha
  EXPECT_NEAR(small_ag.beta_s_per_byte, 8e-9, 1e-15);
  // Broadcast was not swept through the link: the profile at the measured rate, every size.
  const auto big_bc = link.at(CollectiveKind::Broadcast, 8 << 20);
  EXPECT_DOUBLE_EQ(big_bc.alpha_s, 50e-6);
  EXPECT_NEAR(big_bc.beta_s_per_byte, 8e-9, 1e-15);
}

TEST(LinkFits, AllReducesTakeTheLinksLineFromALowerSizeThanAllGathers) {
  // Between the two thresholds: a 256 KiB all-reduce is costed by the link's own
  // line, a 256 KiB-per-rank all-gather by the profile at the measured rate.
  static_assert(kLinkFitsMinBytesAllReduce < kLinkFitsMinBytes);
  const model::Profile p = profile_for_link(base_profile(), link_state(), 1.0);
  const model::LinkCost link(p.cluster.inter, "inter");
  const double n = 2 * kLinkFitsMinBytesAllReduce;
  ASSERT_LT(n, kLinkFitsMinBytes);
  const double tr = model::flat_collective_s(CollectiveKind::AllReduce, model::Algorithm::Ring, 2, n,
                                             link.at(CollectiveKind::AllReduce, n));
  EXPECT_NEAR(tr / (300e-6 + 8e-9 * n), 1.0, 1e-6);
  const auto ag = link.at(CollectiveKind::AllGather, n);
  EXPECT_DOUBLE_EQ(ag.alpha_s, 50e-6);
  EXPECT_NEAR(ag.beta_s_per_byte, 8e-9, 1e-15);
}

TEST(LinkFits, AllReducesBelowOneMiBFollowTheSweepsOwnPoints) {
  // A sweep whose 256 KiB size sits 1 ms above the line: between 256 and 512 KiB the cost
  // is the straight line through the two measured points (not the piecewise fit, which is
  // held to its error target only from 1 MiB); from 1 MiB the fit again.
  calibrate::CalibrationState st = link_state();
  auto& rows = st.collectives->sweeps[0].rows;
  auto at = [&](int64_t bytes) -> calibrate::SweepRow& {
    for (auto& r : rows)
      if (r.bytes == bytes) return r;
    throw std::runtime_error("no row");
  };
  const double bump = 1e-3, t256 = 300e-6 + 8e-9 * (256 << 10) + bump, t512 = 300e-6 + 8e-9 * (512 << 10);
  auto& r256 = at(256 << 10).time_s;
  r256.median = r256.mean = r256.mean_w95 = r256.p10 = r256.p90 = r256.min = r256.max = t256;
  const model::Profile p = profile_for_link(base_profile(), st, 1.0);
  const model::LinkCost link(p.cluster.inter, "inter");
  auto cost = [&](double n) {
    return model::flat_collective_s(CollectiveKind::AllReduce, model::Algorithm::Ring, 2, n,
                                    link.at(CollectiveKind::AllReduce, n));
  };
  EXPECT_NEAR(cost(384 << 10), 0.5 * (t256 + t512), 1e-9);
  EXPECT_NEAR(cost(256 << 10), t256, 1e-9);
  const double n = 4 << 20;
  EXPECT_NEAR(cost(n) / (300e-6 + 8e-9 * n), 1.0, 0.05);
  // A falling pair (the 256 KiB size above the 512 KiB one: noise) is flat at its mean.
  const double t256_high = t512 + 2e-3;
  r256.median = r256.mean = r256.mean_w95 = r256.p10 = r256.p90 = r256.min = r256.max = t256_high;
  const model::Profile q = profile_for_link(base_profile(), st, 1.0);
  const model::LinkCost flat(q.cluster.inter, "inter");
  for (double m : {double(256 << 10), double(384 << 10)})
    EXPECT_NEAR(model::flat_collective_s(CollectiveKind::AllReduce, model::Algorithm::Ring, 2, m,
                                         flat.at(CollectiveKind::AllReduce, m)),
                0.5 * (t256_high + t512), 1e-9);
}

// Long flows: the all-gather's two largest sizes 1.5x slower than its line (the long flows'
// rate). From 1 MiB per rank up every all-gather costs their rate; below, the profile as
// before; the all-reduce keeps its line.
TEST(LinkFits, LongFlowsTakeTheLargestSizesRateWhereTheLineMissesThem) {
  calibrate::CalibrationState st = link_state();
  const double A = 200e-6, B = 16e-9, slow = 1.5;
  double n_sum = 0, t_sum = 0;  // the two largest sizes, per rank
  for (auto& r : st.collectives->sweeps[1].rows)  // the all-gather
    if (r.bytes >= (8 << 20)) {
      auto& t = r.time_s;
      t.median = t.mean = t.mean_w95 = t.p10 = t.p90 = t.min = t.max = t.median * slow;
      n_sum += double(r.bytes) / 2;
      t_sum += t.median;
    }
  ASSERT_NEAR(t_sum, slow * (2 * A + B * double((8 << 20) + (16 << 20))), 1e-12);
  const model::Profile p = profile_for_link(base_profile(), st, 1.0);
  const model::LinkCost link(p.cluster.inter, "inter");
  auto ag = [&](double n) {
    return model::flat_collective_s(CollectiveKind::AllGather, model::Algorithm::Ring, 2, n,
                                    link.at(CollectiveKind::AllGather, n));
  };
  for (double n : {double(1 << 20), double(3 << 20), double(32 << 20)})
    EXPECT_NEAR(ag(n), n * t_sum / n_sum, 1e-9) << n;
  EXPECT_GT(ag(1 << 20), 1.2 * (A + B * 2 * double(1 << 20)));  // not the line
  const auto small = link.at(CollectiveKind::AllGather, 256 << 10);
  EXPECT_NEAR(small.beta_s_per_byte, 8e-9, 1e-15);  // below 1 MiB: unchanged
  const double n = 2 << 20;
  const double tr = model::flat_collective_s(CollectiveKind::AllReduce, model::Algorithm::Ring, 2, n,
                                             link.at(CollectiveKind::AllReduce, n));
  EXPECT_NEAR(tr / (300e-6 + 8e-9 * n), 1.0, 1e-6);  // the all-reduce's line
}

// What the model charges for an n-byte-per-rank message of kind k under `ranges`.
double ranges_time_s(const std::vector<model::SizeRangeFit>& ranges, CollectiveKind k, int world, double n) {
  const model::LinkCost link(model::LinkLevel{1.0, 0, {{model::collective_key(k), ranges}}}, "inter");
  return model::flat_collective_s(k, model::Algorithm::Ring, world, n, link.at(k, n));
}

TEST(LinkFits, LongFlowRateFromTheTwoLargestSizes) {
  std::vector<model::SizeRangeFit> ranges{{0, 1 << 20, 1e-3, 8e-9}, {1 << 20, model::kInf, 0, 10e-9}};
  const auto before = ranges;
  const double n1 = 8 << 20, n2 = 4 << 20;  // all-gather at 2 ranks: T = a + n b
  // One top size, or top sizes below `from`: nothing to go on, unchanged.
  EXPECT_FALSE(long_flow_rate(ranges, CollectiveKind::AllGather, 2, 1 << 20, {{n1, 2 * 10e-9 * n1}}));
  EXPECT_FALSE(long_flow_rate(ranges, CollectiveKind::AllGather, 2, 16 << 20,
                              {{n1, 2 * 10e-9 * n1}, {n2, 2 * 10e-9 * n2}}));
  ASSERT_EQ(ranges.size(), before.size());
  EXPECT_DOUBLE_EQ(ranges[1].beta_s_per_byte, 10e-9);
  // Replaced from `from` up (the small range kept): the top sizes' summed rate.
  ASSERT_TRUE(long_flow_rate(ranges, CollectiveKind::AllGather, 2, 1 << 20,
                             {{n1, 1.1 * 10e-9 * n1}, {n2, 1.3 * 10e-9 * n2}}));
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_DOUBLE_EQ(ranges[0].alpha_s, 1e-3);
  EXPECT_DOUBLE_EQ(double(ranges[1].min_bytes), double(1 << 20));
  EXPECT_NEAR(ranges_time_s(ranges, CollectiveKind::AllGather, 2, 5e6),
              5e6 * (1.1 * 10e-9 * n1 + 1.3 * 10e-9 * n2) / (n1 + n2), 1e-12);
  // 4 ranks: the ring's factor (p - 1) divides the per-byte cost.
  std::vector<model::SizeRangeFit> four{{0, model::kInf, 0, 1e-9}};
  ASSERT_TRUE(long_flow_rate(four, CollectiveKind::AllGather, 4, 1 << 20, {{n1, 0.1}, {n2, 0.05}}));
  EXPECT_NEAR(ranges_time_s(four, CollectiveKind::AllGather, 4, n1), 0.15 * n1 / (n1 + n2), 1e-12);
}

// The shaped link replaces the profile's levels; a collective's CPU side (comm_contention)
// stays the calibration link's, kept as the reference, and a reference already set stays.
TEST(LinkFits, TheCalibrationLinkStaysTheCommContentionReference) {
  const model::Profile base = base_profile();
  const model::Profile p = profile_for_link(base, link_state(), 1.0);
  ASSERT_TRUE(p.cluster.comm_contention_reference.has_value());
  EXPECT_EQ(p.cluster.comm_contention_reference->bandwidth_gbps, base.cluster.inter.bandwidth_gbps);
  EXPECT_EQ(p.cluster.comm_contention_reference->collectives.size(), base.cluster.inter.collectives.size());
  EXPECT_NE(p.cluster.inter.bandwidth_gbps, base.cluster.inter.bandwidth_gbps);
  model::Profile again = base;
  again.cluster.comm_contention_reference = model::LinkLevel{42.0, 1e-5, {}};
  EXPECT_EQ(profile_for_link(again, link_state(), 1.0).cluster.comm_contention_reference->bandwidth_gbps, 42.0);
}

TEST(LinkFits, AStateWithoutASweepOrRateIsAClearError) {
  calibrate::CalibrationState empty;
  EXPECT_THROW(profile_for_link(base_profile(), empty, 1.0), ValidateError);
  EXPECT_THROW(profile_for_link(base_profile(), link_state(), 0.0), ValidateError);
}

TEST(LinkFits, AnUnfittableSweepNamesTheLinkAndItsFile) {
  const std::string path = ::testing::TempDir() + "gcu_link_fits_empty.json.state.json";
  calibrate::CalibrationState st;  // no collective sweep
  st.meta.world = 2;
  calibrate::write_state_file(path, st);
  LinkRate l;
  l.link = parse_link("200mbit");
  l.ranks = 2;
  l.measured_gbps = 0.19;
  l.state_path = path;
  Cell c;
  c.model = "cnn";
  c.scheme = "none";
  c.link = l.link;
  c.ranks = 2;
  std::vector<std::unique_ptr<CellPredictor>> preds;
  try {
    apply_link_fits(base_profile(), {c}, {l}, preds);
    ADD_FAILURE() << "no error";
  } catch (const ValidateError& e) {
    EXPECT_NE(std::string(e.what()).find("link 200mbit x2 (" + path + ")"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no collective sweep"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcu::validate
