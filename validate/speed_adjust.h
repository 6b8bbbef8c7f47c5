// The machine's speed taken out of a cell's measurement (docs/validation.md §2, "Speed
// adjustment"): a control variate on the scheme-independent compute.
//
// On a shared machine the rounds of one cell move together in every component: a round
// that ran in a slow minute has a slower forward AND a slower total (recorded ResNet-18
// grids: the rounds' totals and forwards correlate 0.8-1.0). The forward + optimizer step
// is work that no scheme or mode changes (the model predicts it alike for every cell of the
// same ranks and batch), so per round
//
//   speed_r = reference_r / mean(reference over every round of every cell of the group)
//
// is how fast the machine ran during that round, and
//
//   adjusted_r = value_r - k S (speed_r - 1), S = dT/ds (the model: the predicted total's
//                                              change when all compute, codecs included,
//                                              takes s times as long)
//
// takes that speed out, k the share of it the reference really tracks: the least-squares
// slope of the rounds' deviations from their cell's mean total on S (speed_r - mean) over
// the grid's cells of the same ranks and batch (1 on 2-rank ResNet-18 grids, 0.3-0.6 at 4
// ranks on 2 cores, where the slowest rank's forward follows the scheduler more than the
// machine). Cells run in a fresh random order every round, so a cell's speeds
// average 1 in expectation and the adjustment moves no cell's expected value: k S only
// sets how much noise is removed, a wrong one cannot bias. What can bias is a cell whose forward
// really differs from its group's: the recorded grids ran the forward 2-8% slower at
// 200 Mbit/s than at the unlimited link, so a group is one (ranks, batch, LINK); the cell's
// mean speed is reported (`mean_speed`), and the summary the median shift adjusted - raw
// error over the cells (recorded grids: within +-1% on most). The group's mean is itself
// a sample of the machine's speed: its 80% interval (from the pooled within-cell spread of
// the references) times k S joins the adjusted rounds' interval in quadrature.
#pragma once

#include "validate/validate.h"

#include <string>
#include <vector>

namespace gcu::validate {

// Relative step of the central difference for S (compute 5% slower / faster).
inline constexpr double kSpeedSensitivityStep = 0.05;

// Fills every ok cell's `speed_adjustment` from its round_values, round_reference and
// `sensitivity_s`, grouping cells by (ranks, batch, link); cells without a positive reference in
// every round are left unadjusted (applied = false, with a note). Then sets each cell's
// `noise_limited` from the adjusted error and uncertainty (judged_error/judged_uncertainty).
// `statistic` is the compared statistic ("mean" or "median").
void apply_speed_adjustment(std::vector<CellResult>& cells, const std::string& statistic);

}  // namespace gcu::validate
