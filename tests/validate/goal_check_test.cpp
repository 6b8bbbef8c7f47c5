// validate/goal_check.cpp: the bound of a cell's error from its noise, and which
// noise-limited cells it shows within the user's goal (validate.h: error_bound, check_goal).
#include "validate/report.h"
#include "validate/validate.h"

#include "round_cells.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

namespace gcu::validate {
namespace {

// The cells of the rounds-plan tests (round_cells.h): rounds, a prediction, calibration noise.
CellResult goal_cell(const std::vector<double>& rounds_s, double predicted_s, double calibration = 0) {
  return round_cells::cell_with_rounds(rounds_s, predicted_s, calibration);
}

TEST(GoalCheck, BoundIsErrorPlusHalfTheNoiseInterval) {
  // Mean 1.0, rounds 0.99 and 1.01 four times: s = 0.01069, 80% interval of the mean
  // 2 t90(3) s / 2 over the value; calibration 2%.
  const CellResult c = goal_cell({0.99, 1.01, 0.99, 1.01}, 1.004, 0.02);
  ASSERT_TRUE(c.noise_limited);
  const double u = c.judged_uncertainty();
  EXPECT_NEAR(u, 2 * student_t90(3) * std::sqrt(4 * 0.0001 / 3) / 2, 1e-9);
  EXPECT_NEAR(error_bound(c), 0.004 + std::hypot(u, 0.02) / 2, 1e-9);
  // The bound of a counted cell is defined too (its error and noise are known).
  const CellResult far = goal_cell({0.99, 1.01, 0.99, 1.01}, 1.2);
  ASSERT_FALSE(far.noise_limited);
  EXPECT_NEAR(error_bound(far), 0.2 + u / 2, 1e-9);
}

TEST(GoalCheck, FailedAndNonFiniteCellsHaveNoBound) {
  CellResult failed = goal_cell({1.0, 1.0}, 1.0);
  failed.ok = false;
  EXPECT_TRUE(std::isnan(error_bound(failed)));
  CellResult nan_err = goal_cell({1.0, 1.1}, 1.0);
  nan_err.error[size_t(Component::Total)] = std::nan("");
  EXPECT_TRUE(std::isnan(error_bound(nan_err)));
}

TEST(GoalCheck, SplitsNoiseLimitedCellsByTheGoal) {
  std::vector<CellResult> cells = {
      goal_cell({0.99, 1.01, 0.99, 1.01}, 1.004),  // noise-limited, bound ~1.2%: within 5%
      goal_cell({0.80, 1.20, 0.80, 1.20}, 1.05),   // noise-limited, bound ~24%: open
      goal_cell({0.99, 1.01, 0.99, 1.01}, 1.10),   // counted (10% error, 1.7% noise)
      goal_cell({0.99, 1.01}, 1.0),                // one cell more, failed below
  };
  cells[3].ok = false;
  ASSERT_TRUE(cells[0].noise_limited);
  ASSERT_TRUE(cells[1].noise_limited);
  ASSERT_FALSE(cells[2].noise_limited);
  const GoalCheck g = check_goal(cells, 0.05);
  EXPECT_EQ(g.ok, 3);
  EXPECT_EQ(g.noise_limited, 2);
  EXPECT_EQ(g.within, 1);
  EXPECT_EQ(g.open, 1);
  EXPECT_NEAR(g.open_fraction, 1.0 / 3, 1e-12);
  EXPECT_NEAR(g.max_bound, error_bound(cells[1]), 1e-12);
  // A looser goal takes the wide cell in; a tighter one leaves both open.
  EXPECT_EQ(check_goal(cells, 0.30).within, 2);
  EXPECT_EQ(check_goal(cells, 0.005).open, 2);
  // summarize() carries the goal it was given.
  EXPECT_EQ(summarize(cells, 0.30).goal_check.within, 2);
  EXPECT_EQ(summarize(cells).goal_check.goal, kDefaultErrorGoal);
}

TEST(GoalCheck, NoNoiseLimitedCellsNothingOpen) {
  const std::vector<CellResult> cells = {goal_cell({0.99, 1.01, 0.99, 1.01}, 1.10)};
  const GoalCheck g = check_goal(cells, 0.05);
  EXPECT_EQ(g.noise_limited, 0);
  EXPECT_EQ(g.open, 0);
  EXPECT_TRUE(std::isnan(g.max_bound));
}

TEST(GoalCheck, InTheReport) {
  Report r;
  r.testbed = "loopback";
  r.options.error_goal = 0.05;
  r.cells = {goal_cell({0.99, 1.01, 0.99, 1.01}, 1.004), goal_cell({0.80, 1.20, 0.80, 1.20}, 1.05)};
  r.summary = summarize(r.cells, r.options.error_goal);
  const auto j = nlohmann::json::parse(format_json(r));
  EXPECT_EQ(j.at("grid").at("error_goal"), 0.05);
  const auto& g = j.at("summary").at("goal_check");
  EXPECT_EQ(g.at("within"), 1);
  EXPECT_EQ(g.at("open"), 1);
  EXPECT_NEAR(g.at("open_fraction").get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(j.at("cells")[0].at("error_bound").get<double>(), error_bound(r.cells[0]), 1e-12);
  const std::string txt = format_table(r);
  EXPECT_NE(txt.find("1 of 2 within it"), std::string::npos) << txt;
  EXPECT_NE(txt.find("1 open (50% of the ok cells"), std::string::npos) << txt;
  const std::string csv = format_csv(r);
  EXPECT_NE(csv.find(",error_bound,message\n"), std::string::npos);
}

}  // namespace
}  // namespace gcu::validate
