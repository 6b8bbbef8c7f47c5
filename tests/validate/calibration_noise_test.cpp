// Tests of validate/calibration_noise.h: a sweep row's statistic redrawn within its standard
// error; every cell's predicted total gets a p10-p90 from redrawn sweeps and floors; a profile that was
// not built from the state, or a state without a sweep, is refused with a named error.
#include "validate/calibration_noise.h"

#include "calibrate/collective_fit.h"
#include "calibrate/profile_builder.h"
#include "model/buckets.h"
#include "simulate/profile_file.h"
#include "validate/predict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace gcu::validate {
namespace {

using compress::CollectiveKind;

// 2 ranks; mean T = A + B x over 16 KiB .. 16 MiB, each row's p10-p90 +-rel of it, n calls.
calibrate::CollectiveSweep noisy_line(CollectiveKind k, double A, double B, double rel, int n) {
  calibrate::CollectiveSweep s;
  s.kind = k;
  s.world = 2;
  for (int64_t bytes = 16 << 10; bytes <= (16 << 20); bytes *= 2) {
    calibrate::SweepRow r;
    r.bytes = bytes;
    r.count = bytes / 4;
    const double t = A + B * double(bytes);
    r.time_s.median = r.time_s.mean = r.time_s.mean_w95 = t;
    r.time_s.p10 = t * (1 - rel);
    r.time_s.p90 = t * (1 + rel);
    r.time_s.min = 0.5 * t;
    r.time_s.max = 2 * t;
    r.time_s.n = size_t(n);
    r.calls = n;
    s.rows.push_back(r);
  }
  return s;
}

calibrate::CalibrationState noisy_state(double rel, int n) {
  calibrate::CalibrationState st;
  st.meta.world = 2;
  st.meta.fit_statistic = "mean";
  calibrate::CollectivesState c;
  c.world = 2;
  c.sweeps = {noisy_line(CollectiveKind::AllReduce, 2e-3, 2e-9, rel, n),
              noisy_line(CollectiveKind::AllGather, 1e-3, 3e-9, rel, n)};
  calibrate::CollectiveSweep rs;
  rs.kind = CollectiveKind::ReduceScatter;
  rs.world = 2;
  rs.supported = false;
  c.sweeps.push_back(rs);
  st.collectives = c;
  return st;
}

// The shipped CPU profile with its link replaced by the state's sweep, fitted as calibrate fits it.
model::Profile profile_from(const calibrate::CalibrationState& st) {
  model::Profile p = simulate::load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/cpu-2rank-cnn.json").profile;
  p.cluster.inter = p.cluster.intra =
      calibrate::link_level_from_sweeps(calibrate::fitted_sweeps(*st.collectives, st.meta.fit_statistic));
  return p;
}

Cell cell(const std::string& scheme) {
  Cell c;
  c.model = "cnn";
  c.scheme = c.scheme_given = scheme;
  c.mode = "overlap";
  c.link = parse_link("unlimited");
  c.batch = 32;
  c.ranks = 2;
  return c;
}

TEST(CalibrationNoise, RedrawsTheFittedStatisticWithinItsStandardError) {
  const auto st = noisy_state(0.5, 16);
  std::mt19937_64 rng(7);
  const auto& row = st.collectives->sweeps[0].rows[3];
  const double t = row.time_s.mean_w95, se = (row.time_s.p90 - row.time_s.p10) / 2.5631 / 4.0;
  double sum = 0, sq = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const auto c = redraw_sweeps(*st.collectives, "mean", rng);
    const double x = c.sweeps[0].rows[3].time_s.mean_w95;
    sum += x;
    sq += (x - t) * (x - t);
    EXPECT_EQ(c.sweeps[0].rows[3].time_s.median, row.time_s.median);  // only the fitted statistic
    EXPECT_FALSE(c.sweeps[2].supported);
  }
  EXPECT_NEAR(sum / draws, t, 4 * se / std::sqrt(double(draws)));
  EXPECT_NEAR(std::sqrt(sq / draws), se, 0.05 * se);
}

TEST(CalibrationNoise, NoisierSweepsGiveWiderPredictedIntervals) {
  const std::vector<CellInputs> cells = {{cell("none"), 0, -1}, {cell("topk:k=0.01"), 0, -1}};
  const auto quiet = noisy_state(0.1, 50), noisy = noisy_state(0.8, 8);
  const auto iq = calibration_noise(profile_from(quiet), quiet, {}, cells);
  const auto in = calibration_noise(profile_from(noisy), noisy, {}, cells);
  for (size_t i = 0; i < cells.size(); ++i) {
    const double point = at(CellPredictor(profile_from(noisy), cells[i].cell).predict(0), Component::Total);
    EXPECT_EQ(in[i].draws, kCalibrationNoiseDraws);
    EXPECT_GT(in[i].p10_s, 0);
    EXPECT_LT(in[i].p10_s, point * 1.001);
    EXPECT_GT(in[i].p90_s, point * 0.999);
    EXPECT_GT(in[i].p90_s - in[i].p10_s, 2 * (iq[i].p90_s - iq[i].p10_s)) << cells[i].cell.label();
  }
}

// A codec's collective floor (profile.h CollectiveFloor) is redrawn within its kept
// standard errors; one without them (older profiles) stays as measured.
TEST(CalibrationNoise, RedrawsACollectiveFloorWithinItsStandardError) {
  model::Profile p = profile_from(noisy_state(0.1, 50));
  p.compressors["signsgd"].allgather_floor = model::CollectiveFloor{2, {1000, 200000}, {0.01, 0.05}, 0, {1e-3, 5e-3}};
  p.compressors["fp16"].allreduce_floor = model::CollectiveFloor{2, {200000}, {0.03}, 0, {}};
  std::mt19937_64 rng(11);
  const int draws = 4000;
  double sum = 0, sq = 0;
  for (int i = 0; i < draws; ++i) {
    model::Profile q = p;
    redraw_floors(q, rng);
    const double x = q.compressors["signsgd"].allgather_floor->seconds[1];
    sum += x;
    sq += (x - 0.05) * (x - 0.05);
    EXPECT_EQ(q.compressors["fp16"].allreduce_floor->seconds[0], 0.03);
    EXPECT_EQ(q.compressors["signsgd"].allgather_floor->se_s, p.compressors["signsgd"].allgather_floor->se_s);
  }
  EXPECT_NEAR(sum / draws, 0.05, 4 * 5e-3 / std::sqrt(double(draws)));
  EXPECT_NEAR(std::sqrt(sq / draws), 5e-3, 0.05 * 5e-3);
}

// A cell bound by its scheme's floor gets the floor's noise in its interval: with quiet
// sweeps the interval is narrow while the floor is exact, and about +-1.28 se wide with it.
TEST(CalibrationNoise, AFloorBoundCellCarriesTheFloorsNoise) {
  const auto quiet = noisy_state(0.05, 50);
  model::Profile p = profile_from(quiet);
  const int64_t n = p.model.parameters;
  p.compressors["signsgd"].allgather_floor = model::CollectiveFloor{2, {n}, {0.05}, 0, {}};
  const std::vector<CellInputs> cells = {{cell("signsgd"), 0, -1}};
  const auto exact = calibration_noise(p, quiet, {}, cells);
  p.compressors["signsgd"].allgather_floor->se_s = {5e-3};
  const auto noisy = calibration_noise(p, quiet, {}, cells);
  ASSERT_EQ(noisy[0].draws, kCalibrationNoiseDraws);
  const double point = at(CellPredictor(p, cells[0].cell).predict(0), Component::Total);
  EXPECT_LT(noisy[0].p10_s, point);
  EXPECT_GT(noisy[0].p90_s, point);
  EXPECT_LT(exact[0].p90_s - exact[0].p10_s, 2e-3);
  EXPECT_GT(noisy[0].p90_s - noisy[0].p10_s, 6e-3);   // 2 x 1.28 x 5 ms = 12.8 ms expected
  EXPECT_LT(noisy[0].p90_s - noisy[0].p10_s, 25e-3);
}

// comm_contention is solved again in every draw against the redrawn fits (calibrate's
// gamma step measured C, not the factor): a model whose all-reduces all run beside the
// backward, slowing it (gamma 2), then predicts C in every draw, so its total does not move;
// with the factor kept as it was, the redrawn sweeps move it.
TEST(CalibrationNoise, CommContentionIsSolvedAgainInEveryDraw) {
  auto st = noisy_state(0.3, 20);
  model::Profile p = profile_from(st);
  p.model.tensors = {{"a", {1000000}}, {"b", {1000000}}, {"c", {1000000}}, {"d", {1000000}}};
  p.model.parameters = p.model.numel();
  p.model.compute = {{32, 0.01, 0.1, 0.002, 0.0, {0, 0, 0, 0}}};  // every gradient ready at once
  p.compressors.clear();
  p.cluster.gamma = 2;
  std::vector<double> sizes;
  for (const auto& b : model::plan_buckets(p.model.tensors, model::BucketOptions::from(p.ddp)))
    sizes.push_back(double(b.bytes));
  ASSERT_GE(sizes.size(), 2u);
  st.gamma = calibrate::GammaState{1.3, 0.1, 0.13, 0, 0, int(sizes.size()), 16e6, 0.06, 0.03, sizes};
  const auto step = calibrate::beside_step(*st.gamma, p);
  ASSERT_TRUE(step.has_value());
  model::BesideCosting costing;
  costing.nodes = p.cluster.world();
  costing.gpus_per_node = 1;
  const model::InterferenceFitResult f = model::fit_interference(p, *step, costing);
  ASSERT_GT(f.comm_contention, 1.2);
  ASSERT_FALSE(f.comm_contention_at_bound || f.gamma_at_bound);
  p.cluster.gamma = f.gamma;
  p.cluster.comm_contention = f.comm_contention;
  const std::vector<CellInputs> cells = {{cell("none"), 0, -1}};
  const double point = at(CellPredictor(p, cells[0].cell).predict(0), Component::Total);
  // Every gradient ready at once is the gamma step itself: forward + the measured backward
  // beside the all-reduces (0.13 s, which outlasts them) + optimizer, in every draw.
  EXPECT_NEAR(point, 0.01 + 0.13 + 0.002, 1e-6);
  const auto solved = calibration_noise(p, st, {}, cells);
  ASSERT_EQ(solved[0].draws, kCalibrationNoiseDraws);
  EXPECT_NEAR(solved[0].p10_s, point, 1e-6);
  EXPECT_NEAR(solved[0].p90_s, point, 1e-6);
  auto kept = st;
  kept.gamma.reset();
  const auto fixed = calibration_noise(p, kept, {}, cells);
  EXPECT_GT(fixed[0].p90_s - fixed[0].p10_s, 1e-4);
}

// The contention factor is redrawn from the ranks resampled with replacement:
// every draw is the factor of some ranks' medians, so it stays within the ranks' own
// figures' factors and varies; an older state (no ranks' figures), one rank, or a profile
// whose factor is not the state's keep the profile's factor.
TEST(CalibrationNoise, RedrawsTheContentionFactorFromItsRanks) {
  calibrate::ContentionState k{"powersgd:rank=4", 2.0, 2.0, 2.0, 0.01, 0.02, {1.8, 2.0, 2.1, 2.4}, {1.5, 1.9, 2.2, 3.0}};
  k.factor = std::sqrt(2.05 * 2.05);
  std::mt19937_64 rng(7);
  double lo = 1e9, hi = 0;
  for (int i = 0; i < 400; ++i) {
    const double f = redraw_contention(k, k.factor, rng);
    lo = std::min(lo, f);
    hi = std::max(hi, f);
    EXPECT_GE(f, std::sqrt(1.8 * 1.5) - 1e-12);
    EXPECT_LE(f, std::sqrt(2.4 * 3.0) + 1e-12);
  }
  EXPECT_LT(lo, k.factor - 0.1);
  EXPECT_GT(hi, k.factor + 0.1);
  EXPECT_DOUBLE_EQ(redraw_contention(k, 3.5, rng), 3.5);  // an edited profile's own factor
  calibrate::ContentionState old = k;
  old.rank_backward_slowdown.clear();
  old.rank_codec_slowdown.clear();
  EXPECT_DOUBLE_EQ(redraw_contention(old, old.factor, rng), old.factor);
  calibrate::ContentionState one = k;
  one.rank_backward_slowdown = {2.0};
  one.rank_codec_slowdown = {2.0};
  EXPECT_DOUBLE_EQ(redraw_contention(one, one.factor, rng), one.factor);
  calibrate::ContentionState below = k;  // slowdowns under 1 (noise): the profile's floor of 1
  below.factor = 0.9;
  below.rank_backward_slowdown = {0.8, 0.9, 1.0, 0.95};
  below.rank_codec_slowdown = {0.9, 0.85, 0.9, 1.0};
  for (int i = 0; i < 20; ++i) EXPECT_DOUBLE_EQ(redraw_contention(below, 1.0, rng), 1.0);
}

TEST(CalibrationNoise, RefusesAProfileNotBuiltFromTheStateAndAStateWithoutASweep) {
  const auto st = noisy_state(0.3, 20);
  model::Profile p = profile_from(st);
  p.cluster.inter.collectives["allreduce"].front().alpha_s *= 1.5;
  const std::vector<CellInputs> cells = {{cell("none"), 0, -1}};
  try {
    calibration_noise(p, st, {}, cells);
    FAIL() << "accepted a profile edited after calibration";
  } catch (const ValidateError& e) {
    EXPECT_NE(std::string(e.what()).find("not the state's sweep"), std::string::npos) << e.what();
  }
  calibrate::CalibrationState none = st;
  none.collectives.reset();
  EXPECT_THROW(calibration_noise(profile_from(st), none, {}, cells), ValidateError);
}

}  // namespace
}  // namespace gcu::validate
