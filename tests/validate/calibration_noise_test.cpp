// Tests of validate/calibration_noise.h: a sweep row's statistic redrawn within its standard
// error; every cell's predicted total gets a p10-p90 from redrawn sweeps; a profile that was
// not built from the state, or a state without a sweep, is refused with a named error.
#include "validate/calibration_noise.h"

#include "calibrate/collective_fit.h"
#include "calibrate/profile_builder.h"
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
