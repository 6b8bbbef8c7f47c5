// validate/report.h and summarize(): the gcu.validate/8 JSON of a synthetic report, CSV
// quoting, noise-limited cells left out of the error statistics.
#include "validate/report.h"
#include "validate/validate.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace gcu::validate {

namespace {
CellResult cell(int id, const std::string& scheme, double pred, double med, double p10, double p90) {
  CellResult c;
  c.cell.id = id;
  c.cell.model = "cnn";
  c.cell.scheme = scheme;
  c.cell.mode = "overlap";
  c.cell.link = parse_link("1gbit");
  c.cell.batch = 32;
  c.cell.ranks = 2;
  c.ok = true;
  at(c.predicted, Component::Total) = pred;
  c.measured[size_t(Component::Total)] = {med, p10, p90, 10};
  at(c.error, Component::Total) = (pred - med) / med;
  for (int k = 0; k < kComponents; ++k)
    if (Component(k) != Component::Total) c.error[size_t(k)] = std::nan("");
  c.spread = (p90 - p10) / med;
  c.noise_limited = c.spread > std::abs((pred - med) / med);
  return c;
}
}  // namespace

TEST(Summary, NoiseLimitedCellsAreNotModelErrors) {
  std::vector<CellResult> cs = {cell(0, "none", 0.9, 1.0, 0.98, 1.02),    // -10%, tight: counted
                                cell(1, "fp16", 1.1, 1.0, 0.7, 1.3),      // +10%, spread 60%: noise
                                cell(2, "topkc:k=0.01,chunk=256", 1.02, 1.0, 0.99, 1.01)};
  cs.push_back(cell(3, "none", 1, 1, 1, 1));
  cs.back().ok = false;
  const Summary s = summarize(cs);
  EXPECT_EQ(s.cells, 4);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.noise_limited, 1);
  EXPECT_EQ(s.counted, 2);
  EXPECT_NEAR(s.max_abs_error, 0.10, 1e-12);
  EXPECT_NEAR(s.median_abs_error, 0.06, 1e-12);
}

TEST(Report, JsonSchemaAndCsv) {
  Report r;
  r.testbed = "loopback";
  r.profile_model = "cnn";
  r.gamma = 1.5;
  r.comm_contention = 2.25;
  r.cells = {cell(0, "none", 0.9, 1.0, 0.98, 1.02), cell(1, "topkc:k=0.01,chunk=256", 1, 1, 1, 1)};
  r.cells[1].ok = false;
  r.cells[1].message = "round 1: exit 1: rank 1 died";
  r.summary = summarize(r.cells);
  const auto j = nlohmann::json::parse(format_json(r));
  EXPECT_EQ(j.at("schema"), "gcu.validate/8");
  EXPECT_EQ(j.at("profile").at("gamma"), 1.5);  // the factors the overlap cells used
  EXPECT_EQ(j.at("profile").at("comm_contention"), 2.25);
  EXPECT_EQ(j.at("profile").at("overlap_contention"), 1.0);
  ASSERT_EQ(j.at("cells").size(), 2u);
  const auto& c0 = j["cells"][0];
  EXPECT_EQ(c0.at("status"), "ok");
  EXPECT_NEAR(c0.at("error").at("total").get<double>(), -0.1, 1e-12);
  EXPECT_TRUE(c0.at("error").at("forward").is_null());  // NaN -> null
  EXPECT_EQ(c0.at("settings").at("link_nominal_gbps"), 1.0);
  EXPECT_FALSE(c0.at("noise_limited").get<bool>());
  EXPECT_TRUE(c0.at("rounds_to_count").is_null());  // counted: no rounds needed
  const auto& plan = j.at("summary").at("rounds_plan");
  for (const char* k : {"rounds", "noise_limited", "count_at_2x", "count_at_4x", "noise_limited_fraction_at_2x",
                        "noise_limited_fraction_at_4x", "calibration_limited", "beyond", "one_round", "max_rounds"})
    EXPECT_TRUE(plan.contains(k)) << k;
  EXPECT_EQ(j["cells"][1].at("status"), "failed");
  EXPECT_TRUE(j["cells"][1].at("measured").is_null());
  EXPECT_EQ(j.at("summary").at("failed"), 1);
  const std::string csv = format_csv(r);
  EXPECT_NE(csv.find("\"topkc:k=0.01,chunk=256\""), std::string::npos);
  EXPECT_NE(format_table(r).find("FAILED"), std::string::npos);
  EXPECT_NE(format_table(r).find("comm_contention 2.250"), std::string::npos);
}

// compute_stats: a cell is noise-limited when the rounds' values move more than the
// model is off, not when single iterations jitter (they always do on a shared VM).
TEST(ComputeStats, NoiseLimitedByTheRoundValuesNotByIterationJitter) {
  auto make = [](std::vector<double> round_medians) {
    CellResult r;
    r.ok = true;
    at(r.predicted, Component::Total) = 0.012;  // measured median 0.010: +20%
    for (double t : {0.005, 0.008, 0.010, 0.010, 0.010, 0.012, 0.020}) {  // p10-p90 ~ 100%
      Breakdown b{};
      at(b, Component::Total) = t;
      r.samples.push_back(b);
    }
    r.round_values = std::move(round_medians);
    compute_stats(r, "median");
    return r;
  };
  const CellResult steady = make({0.0099, 0.0100, 0.0102});  // medians within 3%
  EXPECT_NEAR(at(steady.error, Component::Total), 0.2, 1e-9);
  EXPECT_GT(steady.spread, 0.5);
  EXPECT_NEAR(steady.uncertainty_range, 0.03, 1e-9);
  // 80% interval of the mean of 3: s = 0.0001528, 2 x 1.886 x s / sqrt(3) = 0.000333 -> 3.3%.
  EXPECT_NEAR(steady.uncertainty, 2 * 1.886 * 0.000152753 / std::sqrt(3.0) / 0.010, 1e-4);
  EXPECT_FALSE(steady.noise_limited);  // a 20% model error, measured to within 3%

  const CellResult drifting = make({0.008, 0.010, 0.013});  // medians 50% apart
  EXPECT_NEAR(drifting.uncertainty_range, 0.5, 1e-9);
  EXPECT_GT(drifting.uncertainty, 0.5);  // s = 0.00252: 2 x 1.886 x 0.00252 / sqrt(3) / 0.010 = 54.8%
  EXPECT_TRUE(drifting.noise_limited);

  // More rounds of the same spread narrow the interval (the range would widen): six rounds
  // within 3% against the same 20% error.
  const CellResult six = make({0.0099, 0.0100, 0.0102, 0.0099, 0.0100, 0.0102});
  EXPECT_LT(six.uncertainty, steady.uncertainty * 0.6);
  EXPECT_NEAR(six.uncertainty_range, 0.03, 1e-9);

  const CellResult one_round = make({0.010});  // no second round: the iteration spread
  EXPECT_DOUBLE_EQ(one_round.uncertainty, one_round.spread);
  EXPECT_TRUE(one_round.noise_limited);
}

// The calibration's own noise (calibration_noise.h) joins the measurement's in quadrature:
// a 20% error measured to within 3% but predicted from a calibration whose noise alone moves
// it by 25% is not counted as a model error; by 10%, it still is.
TEST(ComputeStats, CalibrationNoiseJoinsTheMeasurementsInQuadrature) {
  auto make = [](double p10, double p90) {
    CellResult r;
    r.ok = true;
    at(r.predicted, Component::Total) = 0.012;
    for (double t : {0.0099, 0.0100, 0.0101}) {
      Breakdown b{};
      at(b, Component::Total) = t;
      r.samples.push_back(b);
    }
    r.round_values = {0.0099, 0.0100, 0.0102};
    r.predicted_p10 = p10;
    r.predicted_p90 = p90;
    r.calibration_draws = 40;
    compute_stats(r, "median");
    return r;
  };
  const CellResult wide = make(0.0105, 0.0135);
  EXPECT_NEAR(wide.calibration_uncertainty, 0.25, 1e-9);
  EXPECT_TRUE(wide.noise_limited);
  const CellResult narrow = make(0.0114, 0.0126);
  EXPECT_NEAR(narrow.calibration_uncertainty, 0.10, 1e-9);
  EXPECT_FALSE(narrow.noise_limited);
  std::vector<CellResult> cells = {wide, narrow};
  const Summary s = summarize(cells);
  EXPECT_EQ(s.noise_limited, 1);
  EXPECT_EQ(s.noise_limited_measurement, 0);
  EXPECT_NEAR(s.median_calibration_uncertainty, 0.175, 1e-9);
}

// The default statistic is the mean iteration time: a bimodal latency tail (a third of the
// iterations 4 ms slower) moves the mean, not the median, and the mean is what a run pays.
TEST(ComputeStats, MeanIsTheDefaultStatisticAndSeesTheTail) {
  CellResult r;
  r.ok = true;
  at(r.predicted, Component::Total) = 0.008;  // 6 ms + a third of 6 ms
  for (int i = 0; i < 30; ++i) {
    Breakdown b{};
    at(b, Component::Total) = i % 3 == 0 ? 0.012 : 0.006;
    r.samples.push_back(b);
  }
  r.round_values = {0.0079, 0.0081};
  CellResult by_median = r;
  compute_stats(r);
  EXPECT_NEAR(r.measured[size_t(Component::Total)].mean, 0.008, 1e-12);
  EXPECT_NEAR(r.measured[size_t(Component::Total)].median, 0.006, 1e-12);
  EXPECT_NEAR(at(r.error, Component::Total), 0.0, 1e-9);
  compute_stats(by_median, "median");
  EXPECT_NEAR(at(by_median.error, Component::Total), 1.0 / 3.0, 1e-9);
}

// summarize(): per-scheme and per-link groups in grid order, over the ok cells.
TEST(Summarize, GroupsBySchemeAndLinkInGridOrder) {
  std::vector<CellResult> cells;
  auto add = [&](const std::string& scheme, const std::string& link, double err, bool ok) {
    CellResult c;
    c.ok = ok;
    c.cell.scheme = scheme;
    c.cell.link.name = link;
    at(c.error, Component::Total) = err;
    cells.push_back(c);
  };
  add("topk", "1gbit", -0.30, true);
  add("none", "1gbit", 0.10, true);
  add("topk", "unlimited", -0.10, true);
  add("topk", "unlimited", 0.90, false);  // failed: not counted anywhere
  const Summary s = summarize(cells);
  ASSERT_EQ(s.by_scheme.size(), 2u);
  EXPECT_EQ(s.by_scheme[0].name, "topk");
  EXPECT_EQ(s.by_scheme[0].cells, 2);
  EXPECT_NEAR(s.by_scheme[0].median_abs_error, 0.20, 1e-12);
  EXPECT_NEAR(s.by_scheme[0].max_abs_error, 0.30, 1e-12);
  EXPECT_NEAR(s.by_scheme[0].median_error, -0.20, 1e-12);
  ASSERT_EQ(s.by_link.size(), 2u);
  EXPECT_EQ(s.by_link[0].name, "1gbit");
  EXPECT_NEAR(s.by_link[0].median_error, -0.10, 1e-12);
  EXPECT_EQ(s.by_link[1].cells, 1);
}

// The batch-size and rank-count groups, named by the number, in grid order; the text
// report lists them only when the grid has more than one, the JSON always.
TEST(Summarize, GroupsByBatchAndRanks) {
  std::vector<CellResult> cells;
  auto add = [&](int batch, int ranks, double err) {
    CellResult c;
    c.ok = true;
    c.cell.scheme = "none";
    c.cell.link.name = "1gbit";
    c.cell.batch = batch;
    c.cell.ranks = ranks;
    at(c.error, Component::Total) = err;
    cells.push_back(c);
  };
  add(16, 2, 0.08);
  add(64, 2, -0.02);
  add(16, 2, 0.04);
  const Summary s = summarize(cells);
  ASSERT_EQ(s.by_batch.size(), 2u);
  EXPECT_EQ(s.by_batch[0].name, "16");
  EXPECT_EQ(s.by_batch[0].cells, 2);
  EXPECT_NEAR(s.by_batch[0].median_error, 0.06, 1e-12);
  EXPECT_NEAR(s.by_batch[1].max_abs_error, 0.02, 1e-12);
  ASSERT_EQ(s.by_ranks.size(), 1u);
  EXPECT_EQ(s.by_ranks[0].cells, 3);

  Report r;
  r.cells = cells;
  r.summary = s;
  const auto j = nlohmann::json::parse(format_json(r));
  ASSERT_EQ(j.at("summary").at("by_batch").size(), 2u);
  EXPECT_EQ(j["summary"]["by_batch"][1]["name"], "64");
  EXPECT_EQ(j.at("summary").at("by_ranks").size(), 1u);
  const std::string text = format_table(r);
  EXPECT_NE(text.find("by per-rank batch"), std::string::npos);
  EXPECT_EQ(text.find("by ranks"), std::string::npos);  // one rank count: not listed
}

}  // namespace gcu::validate

// round_drift: a round that every cell ran slower in shows as that round's drift (the
// median over the cells), whatever the cells' errors; a round no cell has reads NaN; a
// cell with one round or a failed cell does not count. The report carries it.
namespace gcu::validate {
TEST(RoundDrift, AMachineWidePhaseShowsAsItsRoundsMedian) {
  std::vector<CellResult> cs;
  const double base[] = {10.0, 20.0, 40.0, 15.0};
  for (int i = 0; i < 4; ++i) {
    CellResult c = cell(i, "none", base[i], base[i], base[i], base[i]);
    // round 0 slow by 30% in every cell; rounds 1 and 2 equal; round 3 missing (excluded).
    c.round_values = {1.3 * base[i], base[i], base[i] * (i % 2 ? 1.02 : 0.98)};
    c.round_ids = {0, 1, 2};
    cs.push_back(c);
  }
  CellResult one = cell(4, "none", 1, 1, 1, 1);  // one round: no drift to tell
  one.round_values = {5.0};
  one.round_ids = {0};
  cs.push_back(one);
  CellResult failed = cell(5, "none", 1, 1, 1, 1);
  failed.ok = false;
  failed.round_values = {100.0, 1.0};
  failed.round_ids = {0, 1};
  cs.push_back(failed);
  const std::vector<double> d = round_drift(cs, 4);
  ASSERT_EQ(d.size(), 4u);
  // Each cell's median of {1.3, 1, 0.98 or 1.02} x base is its base value (x1.0 or x1.02).
  EXPECT_NEAR(d[0], 1.3 / 1.01, 0.015);
  EXPECT_NEAR(d[1], 1.0 / 1.01, 0.015);
  EXPECT_NEAR(d[2], 1.0, 0.015);
  EXPECT_TRUE(std::isnan(d[3]));
  EXPECT_GT(std::abs(d[0] - 1), kRoundDriftWarn);
  EXPECT_LT(std::abs(d[1] - 1), kRoundDriftWarn);

  Report r;
  r.testbed = "loopback";
  r.cells = cs;
  r.summary = summarize(r.cells);
  r.summary.round_drift = d;
  const auto j = nlohmann::json::parse(format_json(r));
  ASSERT_EQ(j.at("summary").at("round_drift").size(), 4u);
  EXPECT_NEAR(j["summary"]["round_drift"][0].get<double>(), d[0], 1e-12);
  EXPECT_TRUE(j["summary"]["round_drift"][3].is_null());
  EXPECT_EQ(j["cells"][0].at("round_ids"), nlohmann::json({0, 1, 2}));
  EXPECT_NE(format_table(r).find("round drift"), std::string::npos);
}
}  // namespace gcu::validate

// student_t90 and round_interval_width against textbook values.
namespace gcu::validate {
TEST(RoundInterval, StudentQuantilesAndTheMeansInterval) {
  EXPECT_NEAR(student_t90(1), 3.078, 1e-9);
  EXPECT_NEAR(student_t90(2), 1.886, 1e-9);
  EXPECT_NEAR(student_t90(20), 1.325, 0.003);
  EXPECT_NEAR(student_t90(120), 1.289, 0.003);
  EXPECT_TRUE(std::isnan(student_t90(0)));
  // {1, 2, 3}: s = 1, 2 x 1.886 / sqrt(3).
  EXPECT_NEAR(round_interval_width({1, 2, 3}), 2 * 1.886 / std::sqrt(3.0), 1e-9);
  EXPECT_TRUE(std::isnan(round_interval_width({1})));
}
}  // namespace gcu::validate

// The compute ratios: measured / predicted forward and backward, median over the ok cells
// (a machine that slowed since the calibration shows in the forward, which nothing else moves).
namespace gcu::validate {
TEST(Summarize, ForwardAndBackwardAgainstTheCalibration) {
  std::vector<CellResult> cs;
  const double fwd_measured[] = {1.15, 1.20, 1.10, 5.0};  // the last cell failed: not counted
  for (int i = 0; i < 4; ++i) {
    CellResult c = cell(i, "none", 1, 1, 1, 1);
    at(c.error, Component::Forward) = (1.0 - fwd_measured[i]) / fwd_measured[i];  // predicted 1
    at(c.error, Component::Backward) = (2.0 - 2.2) / 2.2;                         // measured 2.2, predicted 2
    c.ok = i < 3;
    cs.push_back(c);
  }
  const Summary s = summarize(cs);
  EXPECT_NEAR(s.forward_measured_over_predicted, 1.15, 1e-9);
  EXPECT_NEAR(s.backward_measured_over_predicted, 1.1, 1e-9);
  EXPECT_GT(std::abs(s.forward_measured_over_predicted - 1), kComputeDriftWarn);
  Report r;
  r.cells = cs;
  r.summary = s;
  const auto j = nlohmann::json::parse(format_json(r));
  EXPECT_NEAR(j.at("summary").at("forward_measured_over_predicted").get<double>(), 1.15, 1e-9);
  EXPECT_NE(format_table(r).find("compute against the calibration"), std::string::npos);
  EXPECT_TRUE(std::isnan(summarize({}).forward_measured_over_predicted));
}
}  // namespace gcu::validate
