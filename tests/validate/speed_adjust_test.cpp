// validate/speed_adjust.h: the machine's speed per round taken out of a cell's rounds, and
// CellPredictor::compute_sensitivity_s, the model's dT/ds that scales it.
#include "validate/speed_adjust.h"

#include "validate/predict.h"
#include "simulate/profile_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace gcu::validate {

namespace {
// A cell whose rounds ran at machine speeds `speeds` (1.1 = 10% slower): the total is
// `link_s` (no CPU) plus `compute_s` x speed, the reference (forward + optimizer)
// `reference_s` x speed; each round has 10 iterations at exactly its round's value.
CellResult cell_at(const std::vector<double>& speeds, double compute_s, double link_s, double reference_s,
                   double predicted_s, int batch = 32) {
  CellResult c;
  c.ok = true;
  c.cell.ranks = 2;
  c.cell.batch = batch;
  c.cell.scheme = "none";
  c.cell.mode = "after";
  at(c.predicted, Component::Total) = predicted_s;
  for (double s : speeds) {
    const double total = link_s + compute_s * s;
    for (int i = 0; i < 10; ++i) {
      Breakdown b{};
      at(b, Component::Total) = total;
      at(b, Component::Forward) = reference_s * s;
      c.samples.push_back(b);
    }
    c.round_values.push_back(total);
    c.round_reference.push_back(reference_s * s);
    c.round_ids.push_back(int(c.round_ids.size()));
  }
  c.speed.sensitivity_s = compute_s;  // the model's dT/ds when it knows the cell
  compute_stats(c, "mean");
  return c;
}

// Eight cells of one group whose rounds ran at +-10% machine speed, in alternating
// patterns (so the group's mean speed is 1), all predicted 10% over their true 0.30 s.
std::vector<CellResult> eight_cells(double predicted_s) {
  std::vector<CellResult> cs;
  for (int i = 0; i < 8; ++i)
    cs.push_back(cell_at(i % 2 ? std::vector<double>{1.1, 0.9, 1.0} : std::vector<double>{0.9, 1.1, 1.0}, 0.30,
                         0.0, 0.08, predicted_s));
  return cs;
}
}  // namespace

// Rounds that slow and fast minutes moved by +-10% make a 10% model error look like noise;
// with the speed taken out the rounds agree, and what is left is how well 24 rounds pin
// the group's mean speed down.
TEST(SpeedAdjust, AComputeBoundCellsRoundsAgreeOnceTheSpeedIsOut) {
  std::vector<CellResult> cs = eight_cells(0.33);
  EXPECT_TRUE(cs[0].noise_limited);  // raw: rounds 0.27 / 0.33 / 0.30
  EXPECT_GT(cs[0].uncertainty, 0.2);
  apply_speed_adjustment(cs, "mean");
  // The group's mean is known to 2 t90(16) s_within / sqrt(24) / mean, s_within = 0.008.
  const double ref_interval = 2 * student_t90(16) * 0.008 / std::sqrt(24.0) / 0.08;
  for (const auto& c : cs) {
    ASSERT_TRUE(c.speed.applied) << c.speed.note;
    EXPECT_NEAR(c.speed.reference_s, 0.08, 1e-12);  // the group's mean
    EXPECT_NEAR(c.speed.mean_speed, 1.0, 1e-12);
    for (double v : c.speed.round_values) EXPECT_NEAR(v, 0.30, 1e-12);
    EXPECT_NEAR(c.speed.reference_uncertainty, ref_interval, 1e-9);  // S = value here
    EXPECT_NEAR(c.speed.uncertainty, ref_interval, 1e-9);            // the rounds agree exactly
    EXPECT_NEAR(c.speed.value, 0.30, 1e-12);
    EXPECT_NEAR(c.speed.error, 0.10, 1e-9);
    EXPECT_NEAR(c.judged_error(), 0.10, 1e-9);
    EXPECT_FALSE(c.noise_limited);                           // 5.5% < 10%
    EXPECT_NEAR(at(c.error, Component::Total), 0.10, 1e-9);  // the raw error is kept
  }
  // Two cells alone pin their group's speed down far less: the same 10% error stays noise.
  std::vector<CellResult> two = {cell_at({0.9, 1.1, 1.0}, 0.30, 0.0, 0.08, 0.33), cell_at({1.1, 0.9, 1.0}, 0.30, 0.0, 0.08, 0.33)};
  apply_speed_adjustment(two, "mean");
  EXPECT_GT(two[0].speed.reference_uncertainty, 0.10);
  EXPECT_TRUE(two[0].noise_limited);
}

// A cell the model says does not depend on compute (S = 0: a link-bound total) is left
// as measured; the speed cannot explain its rounds' spread.
TEST(SpeedAdjust, ZeroSensitivityLeavesTheMeasurement) {
  std::vector<CellResult> cs = {cell_at({0.9, 1.1, 1.0}, 0.30, 0.0, 0.08, 0.309)};
  cs[0].speed.sensitivity_s = 0;
  const double raw_unc = cs[0].uncertainty;
  apply_speed_adjustment(cs, "mean");
  ASSERT_TRUE(cs[0].speed.applied);
  EXPECT_NEAR(cs[0].speed.uncertainty, raw_unc, 1e-12);
  EXPECT_NEAR(cs[0].speed.error, at(cs[0].error, Component::Total), 1e-12);
  EXPECT_TRUE(cs[0].noise_limited);
}

// The speed is taken against cells of the same ranks, batch and link only (another batch's
// forward is another amount of work; a slow link's ran slower on the recorded grids), and a cell measured in slower rounds than its group on average
// is moved by S (mean_speed - 1): the expected value of every cell stays where it was.
TEST(SpeedAdjust, GroupsByBatchAndMovesACellBySTimesItsMeanSpeed) {
  std::vector<CellResult> cs = {cell_at({1.0, 1.0}, 0.30, 0.05, 0.08, 0.35),
                                cell_at({1.2, 1.2}, 0.30, 0.05, 0.08, 0.35),
                                cell_at({1.0, 1.0}, 0.15, 0.05, 0.04, 0.20, /*batch=*/16),
                                cell_at({1.0, 1.0}, 0.30, 0.05, 0.09, 0.35)};
  cs[3].cell.link = parse_link("200mbit");  // its forward ran slower: a group of its own
  apply_speed_adjustment(cs, "mean");
  EXPECT_NEAR(cs[3].speed.reference_s, 0.09, 1e-12);
  EXPECT_NEAR(cs[3].speed.value, 0.35, 1e-12);
  EXPECT_NEAR(cs[0].speed.reference_s, 0.088, 1e-12);
  EXPECT_NEAR(cs[2].speed.reference_s, 0.04, 1e-12);  // not mixed with batch 32
  EXPECT_NEAR(cs[2].speed.mean_speed, 1.0, 1e-12);
  // Group speeds 1/1.1 and 1.2/1.1: the fast cell moves up, the slow one down, by S x.
  EXPECT_NEAR(cs[0].speed.value, 0.35 - 0.30 * (1 / 1.1 - 1), 1e-12);
  EXPECT_NEAR(cs[1].speed.value, 0.41 - 0.30 * (1.2 / 1.1 - 1), 1e-12);
  EXPECT_NEAR(cs[0].speed.value, cs[1].speed.value, 0.01);  // linear in the speed: 0.377 and 0.383
}

// A reference that moves twice as much as the total it should explain (here: the totals
// move by half of S x the speed) gets half the weight: k = 0.5 fitted over the grid, and
// the adjusted rounds agree again. A reference that does not move with the totals at all
// gets k = 0 and the raw rounds stand.
TEST(SpeedAdjust, TheCoefficientIsFittedOverTheGrid) {
  std::vector<CellResult> cs = eight_cells(0.33);
  for (auto& c : cs) {
    for (size_t r = 0; r < c.round_values.size(); ++r)
      c.round_values[r] = 0.30 + 0.5 * 0.30 * (c.round_reference[r] / 0.08 - 1);
    compute_stats(c, "mean");
  }
  apply_speed_adjustment(cs, "mean");
  for (const auto& c : cs) {
    EXPECT_NEAR(c.speed.coefficient, 0.5, 1e-9);
    for (double v : c.speed.round_values) EXPECT_NEAR(v, 0.30, 1e-12);
  }
  std::vector<CellResult> flat = eight_cells(0.33);
  for (auto& c : flat) {
    for (double& v : c.round_values) v = 0.30;
    compute_stats(c, "mean");
  }
  apply_speed_adjustment(flat, "mean");
  EXPECT_NEAR(flat[0].speed.coefficient, 0.0, 1e-9);
  EXPECT_NEAR(flat[0].speed.value, 0.30, 1e-12);
}

// A cell whose forward sits far outside its group's (the scheme changes it) is left as
// measured and kept out of the group's mean, so the others are not moved by it.
TEST(SpeedAdjust, ACellThatChangesTheForwardIsLeftAsMeasured) {
  std::vector<CellResult> cs = eight_cells(0.33);
  cs.push_back(cell_at({1.5, 1.6, 1.55}, 0.30, 0.0, 0.08, 0.33));  // its forward ~55% slower, every round
  apply_speed_adjustment(cs, "mean");
  EXPECT_FALSE(cs[8].speed.applied);
  EXPECT_NE(cs[8].speed.note.find("changes the forward"), std::string::npos) << cs[8].speed.note;
  EXPECT_NEAR(cs[8].judged_error(), at(cs[8].error, Component::Total), 1e-12);
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(cs[size_t(i)].speed.applied);
    EXPECT_NEAR(cs[size_t(i)].speed.reference_s, 0.08, 1e-12);
  }
}

// A grid that ran 25% slower than the calibration throughout: at the grid's own speed the
// model is 20% optimistic (a machine drift, which the speed adjustment keeps), at the
// calibration's speed (the predicted forward as the reference) it is right.
TEST(SpeedAdjust, AtTheCalibrationsSpeedTheDriftSinceIsOutToo) {
  std::vector<CellResult> cs;
  for (int i = 0; i < 8; ++i) {
    cs.push_back(cell_at(i % 2 ? std::vector<double>{1.3, 1.2, 1.25} : std::vector<double>{1.2, 1.3, 1.25}, 0.30,
                         0.0, 0.08, 0.30));
    at(cs.back().predicted, Component::Forward) = 0.08;  // what the calibration timed
  }
  apply_speed_adjustment(cs, "mean");
  ASSERT_TRUE(cs[0].speed.applied);
  EXPECT_NEAR(cs[0].speed.error, 0.30 / 0.375 - 1, 1e-9);
  EXPECT_NEAR(cs[0].speed.error_at_calibration_speed, 0.0, 1e-9);
  const Summary s = summarize(cs);
  EXPECT_NEAR(s.median_abs_error, 0.2, 1e-9);
  EXPECT_NEAR(s.median_abs_error_at_calibration_speed, 0.0, 1e-9);
}

// A cell without a reference in every round (an older log, a round without iterations)
// keeps its raw figures, says why, and the summary counts it as unadjusted.
TEST(SpeedAdjust, WithoutReferencesTheRawFiguresStand) {
  std::vector<CellResult> cs = eight_cells(0.33);
  cs[1].round_reference.pop_back();
  apply_speed_adjustment(cs, "mean");
  EXPECT_TRUE(cs[0].speed.applied);
  EXPECT_FALSE(cs[1].speed.applied);
  EXPECT_NE(cs[1].speed.note.find("forward + optimizer"), std::string::npos);
  EXPECT_TRUE(cs[1].noise_limited);
  EXPECT_NEAR(cs[1].judged_error(), at(cs[1].error, Component::Total), 1e-12);
  const Summary s = summarize(cs);
  EXPECT_EQ(s.speed_adjusted, 7);
  EXPECT_EQ(s.noise_limited, 1);             // cs[1]
  EXPECT_EQ(s.noise_limited_unadjusted, 8);  // all, by their raw rounds
  EXPECT_EQ(s.counted, 7);
  EXPECT_EQ(s.counted_unadjusted, 0);
  EXPECT_NEAR(s.median_abs_error, 0.10, 1e-9);
  EXPECT_NEAR(s.speed_adjustment_shift, 0.0, 1e-9);  // the adjustment moved no error
}

// The model's dT/ds: in `after` mode on the profile's own link every compute second
// counts once, so S is the predicted compute (forward, backward, optimizer, codecs); in
// `overlap` mode, at most the total; at a slow link the communication does not scale, so S
// is below the total.
TEST(SpeedAdjust, SensitivityIsThePredictedComputeTheTotalDependsOn) {
  const model::Profile p =
      simulate::load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/cpu-2rank-cnn.json").profile;
  Cell after;
  after.model = "cnn";
  after.scheme = "none";
  after.mode = "after";
  after.ranks = 2;
  after.batch = 32;
  after.link = parse_link("unlimited");
  const CellPredictor pa(p, after);
  const Breakdown b = pa.predict(0);
  const double compute = at(b, Component::Forward) + at(b, Component::Backward) + at(b, Component::Optimizer) +
                         at(b, Component::Encode) + at(b, Component::Decode) + at(b, Component::Data);
  EXPECT_NEAR(pa.compute_sensitivity_s(0), compute, 1e-3 * compute);
  const Breakdown slow = pa.predict(0, 2.0);
  EXPECT_NEAR(at(slow, Component::Forward), 2 * at(b, Component::Forward), 1e-12);

  Cell overlap = after;
  overlap.mode = "overlap";
  const CellPredictor po(p, overlap);
  const double so = po.compute_sensitivity_s(0.2);
  EXPECT_GT(so, 0);
  EXPECT_LT(so, at(po.predict(0.2), Component::Total));
}

}  // namespace gcu::validate
