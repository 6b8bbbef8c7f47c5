// Tests of validate/grid_speed.h: a grid that ran every compute and codec step slower
// than calibrated by one factor is predicted exactly at the grid's speed; a model error
// on top of it is not taken out; without a measured forward nothing is set; the report
// carries the figures (JSON, CSV, text).
#include "validate/grid_speed.h"

#include "simulate/profile_file.h"
#include "validate/report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace gcu::validate {
namespace {

model::Profile shipped() {
  return simulate::load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/cpu-2rank-cnn.json").profile;
}

Cell cell(const std::string& scheme, const std::string& mode) {
  Cell c;
  c.model = "cnn";
  c.scheme = c.scheme_given = scheme;
  c.mode = mode;
  c.link = parse_link("unlimited");
  c.batch = 32;
  c.ranks = 2;
  return c;
}

struct Grid {
  std::vector<std::unique_ptr<CellPredictor>> preds;
  std::vector<CellResult> cells;
  Summary summary;
};

// Every cell "measured" as the model predicts it on a machine whose compute and codecs run
// `slower` times the calibrated time, the total then x `model_error`; 3 identical rounds.
Grid measured_grid(double slower, double model_error, bool with_forward = true) {
  const model::Profile p = shipped();
  Grid g;
  for (const auto& [s, m] : {std::pair{"none", "overlap"}, {"fp16", "after"}, {"topk:k=0.01", "overlap"},
                             {"powersgd:rank=2", "after"}}) {
    g.preds.push_back(std::make_unique<CellPredictor>(p, cell(s, m)));
    CellResult r;
    r.cell = cell(s, m);
    r.ok = true;
    Breakdown b = g.preds.back()->predict(0, 1 / slower);
    at(b, Component::Total) *= model_error;
    if (!with_forward) at(b, Component::Forward) = 0;
    r.samples.assign(6, b);
    r.round_values.assign(3, at(b, Component::Total));
    r.round_ids = {0, 1, 2};
    r.predicted = g.preds.back()->predict(0);
    compute_stats(r, "mean");
    g.cells.push_back(r);
  }
  g.summary = summarize(g.cells);
  add_grid_speed(g.preds, "mean", g.cells, g.summary);
  return g;
}

TEST(GridSpeed, AMachineSlowerThanCalibratedIsPredictedAtItsOwnSpeed) {
  const Grid g = measured_grid(1.3, 1.0);
  EXPECT_NEAR(g.summary.forward_measured_over_predicted, 1.3, 1e-9);
  EXPECT_GT(g.summary.median_abs_error_all, 0.05);  // the plain prediction sees the drift
  const GridSpeedErrors& s = g.summary.at_grid_speed;
  EXPECT_NEAR(s.compute_factor, 1.3, 1e-9);
  EXPECT_LT(s.max_abs_error_all, 1e-9);
  for (const auto& c : g.cells) {
    EXPECT_NEAR(c.error_at_grid_speed, 0, 1e-9) << c.cell.label();
    EXPECT_NEAR(c.predicted_total_at_grid_speed, c.measured[size_t(Component::Total)].mean, 1e-12);
    EXPECT_LT(at(c.error, Component::Total), -0.05) << c.cell.label();  // optimistic before
  }
}

TEST(GridSpeed, AModelErrorOnTopOfTheDriftIsNotTakenOut) {
  const Grid g = measured_grid(1.2, 1.25);
  const GridSpeedErrors& s = g.summary.at_grid_speed;
  EXPECT_NEAR(s.compute_factor, 1.2, 1e-9);
  EXPECT_NEAR(s.median_error_all, 1 / 1.25 - 1, 1e-9);
  EXPECT_NEAR(s.median_abs_error, 0.2, 1e-9);
  EXPECT_EQ(s.counted, 4);  // identical rounds: no noise hides it
  EXPECT_EQ(s.noise_limited, 0);
}

TEST(GridSpeed, NoMeasuredForwardSetsNothingAndTheReportSaysNull) {
  Grid g = measured_grid(1.3, 1.0, /*with_forward=*/false);
  EXPECT_TRUE(std::isnan(g.summary.at_grid_speed.compute_factor));
  for (const auto& c : g.cells) EXPECT_TRUE(std::isnan(c.error_at_grid_speed));
  Report rep;
  rep.cells = g.cells;
  rep.summary = g.summary;
  const auto j = nlohmann::json::parse(format_json(rep));
  EXPECT_TRUE(j.at("summary").at("at_grid_speed").is_null());
  EXPECT_TRUE(j.at("cells").at(0).at("at_grid_speed").is_null());
}

TEST(GridSpeed, TheReportCarriesTheFigures) {
  const Grid g = measured_grid(1.3, 1.1);
  Report rep;
  rep.cells = g.cells;
  rep.summary = g.summary;
  const auto j = nlohmann::json::parse(format_json(rep));
  const auto& s = j.at("summary").at("at_grid_speed");
  EXPECT_NEAR(s.at("compute_factor").get<double>(), 1.3, 1e-9);
  EXPECT_NEAR(s.at("median_error_total_all_ok").get<double>(), 1 / 1.1 - 1, 1e-9);
  EXPECT_EQ(s.at("counted").get<int>(), 4);
  const auto& c = j.at("cells").at(0).at("at_grid_speed");
  EXPECT_NEAR(c.at("error_total").get<double>(), 1 / 1.1 - 1, 1e-9);
  EXPECT_FALSE(c.at("noise_limited").get<bool>());
  const std::string csv = format_csv(rep);
  EXPECT_NE(csv.find(",pred_total_at_grid_speed_s,error_total_at_grid_speed,message\n"), std::string::npos);
  EXPECT_NE(format_table(rep).find("at the grid's compute speed (every prediction's compute and codec times x1.300"),
            std::string::npos);
}

}  // namespace
}  // namespace gcu::validate
