// A validate cell built from per-round values, its statistics computed as `gcu validate`
// computes them: shared by the tests of the rounds plan and the goal check.
#pragma once

#include "validate/validate.h"

#include <gtest/gtest.h>

#include <vector>

namespace gcu::validate::round_cells {

// A cell whose rounds measured `rounds_s` (10 iterations at exactly each value), predicted
// `predicted_s`, with the calibration's p10-p90 of the predicted total `calibration` wide
// (0: no calibration noise drawn), on the 1gbit link.
inline CellResult cell_with_rounds(const std::vector<double>& rounds_s, double predicted_s, double calibration = 0) {
  CellResult c;
  c.ok = true;
  c.cell.scheme = "none";
  c.cell.link = parse_link("1gbit");
  c.predicted[size_t(Component::Total)] = predicted_s;
  for (double v : rounds_s) {
    for (int i = 0; i < 10; ++i) {
      Breakdown b{};
      b[size_t(Component::Total)] = v;
      c.samples.push_back(b);
    }
    c.round_values.push_back(v);
    c.round_ids.push_back(int(c.round_ids.size()));
  }
  c.rounds = int(rounds_s.size());
  if (calibration > 0) {  // the predicted total's p10-p90 over redrawn calibrations
    c.calibration_draws = 200;
    c.predicted_p10 = predicted_s * (1 - calibration / 2);
    c.predicted_p90 = predicted_s * (1 + calibration / 2);
  }
  compute_stats(c, "mean");
  EXPECT_NEAR(c.calibration_uncertainty, calibration, 1e-12);
  return c;
}

}  // namespace gcu::validate::round_cells
