// The model's error at the grid's own compute speed (docs/validation.md §2, "Compute
// against the calibration").
//
// On a shared machine compute runs 5-37% slower or faster during a grid than during the
// calibration minutes before it (docs/validation.md causes 6, 12, 14), which moves every
// prediction by that share of compute: machine noise, not a model error. No scheme, link
// or mode changes the forward pass, so the median over the cells of measured / predicted
// forward (Summary::forward_measured_over_predicted) measures that change. Every cell is
// predicted again with the profile's compute and codec times scaled by it (the model's
// Conditions::compute_speedup = 1 / factor) and its error, noise test and the grid's
// figures computed as for the plain prediction. One number is taken from the grid (a
// degree of freedom over all its cells); the backward, the communication and its
// overlap, the codecs and the optimizer are still predicted. Reported beside the plain
// figures, never instead of them.
//
//   add_grid_speed(preds, "mean", rep.cells, rep.summary);   // after summarize()
#pragma once

#include "validate/predict.h"
#include "validate/validate.h"

#include <memory>
#include <string>
#include <vector>

namespace gcu::validate {

// preds[i] predicts cells[i]. Needs summary.forward_measured_over_predicted (finite, > 0);
// without it sets nothing. Uses each cell's rate_used_gbps, uncertainty and
// calibration_uncertainty as computed for the plain prediction.
void add_grid_speed(const std::vector<std::unique_ptr<CellPredictor>>& preds, const std::string& statistic,
                    std::vector<CellResult>& cells, Summary& summary);

}  // namespace gcu::validate
