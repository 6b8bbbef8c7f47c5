// How far the calibration's own sampling noise moves each cell's prediction (it is as
// large as the error goal): a prediction is made from a few dozen timed calls per
// collective size, and at 4 ranks on 2 cores a small call varies by 40-80%, so three
// calibrations made minutes apart in the same placement predict the same cell 7% apart on
// median (15% p90). A cell whose error is within that is not a model error.
//
// Parametric bootstrap over the collective sweeps: every supported row's fitted statistic
// (the state's fit_statistic: mean, median, p10 or min) is redrawn as t + z se, z ~ N(0, 1),
// se = sd / sqrt(n) (sd from the row's p10-p90: (p90 - p10) / 2.563; x 1.253 for a median),
// the sweeps refitted as calibrate fits them (profile_builder.h, link_fits.h for a shaped
// link's own sweep), and every cell predicted again. The collective floors of the
// profile's codecs (allreduce_floor, allgather_floor: free-running or backend-reduced calls
// timed over 15-60 rounds, which spread by +-17% between calibrations at 4 ranks on 2
// cores) are redrawn in the same draw, each size's time as t + z se from its kept standard
// error (floors without one, from older calibrations, are taken as exact). The interval
// is the p10-p90 of those predictions of the total. The overlap contention factor, when
// the state keeps every rank's slowdowns (newer calibrations), is
// redrawn from the ranks resampled with replacement (the medians' factor, as calibrate
// takes it). Compute and codec encode/decode fits
// are not redrawn (their timed iterations are many more; the collectives dominate the
// 4-rank spread).
#pragma once

#include "calibrate/state.h"
#include "model/profile.h"
#include "validate/grid.h"
#include "validate/validate.h"

#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

namespace gcu::validate {

// 200: the p10-p90 of 40 draws read 10.1-13.7% on median over five seeds of one grid
// (cpu-4rank-cnn-tta), biased low against 12.7-13.6% at 640; 200 draws make that grid's
// `gcu validate --reuse` 1.45 s instead of 0.92.
inline constexpr int kCalibrationNoiseDraws = 200;

// The overlap contention factor redrawn (above): `profile_factor` itself when the state
// has fewer than two ranks' figures or the profile's factor is not the state's.
double redraw_contention(const calibrate::ContentionState& k, double profile_factor, std::mt19937_64& rng);

// The collective sweeps of `c` with every supported row's `statistic` redrawn (above).
calibrate::CollectivesState redraw_sweeps(const calibrate::CollectivesState& c, const std::string& statistic,
                                          std::mt19937_64& rng);

// `p` with every codec's collective floor that keeps standard errors redrawn (above); a
// time stays >= 10% of its measured value.
void redraw_floors(model::Profile& p, std::mt19937_64& rng);

// What a cell is predicted with: its link rate and, when the link's own sweep is used
// (link_fits.h), that sweep's index in calibration_noise's `link_states`.
struct CellInputs {
  Cell cell;
  double rate_gbps = 0;
  int link_state = -1;  // >= 0: predicted with that link's fits
  // The link's own gamma step (link_gamma.h), or null: its gamma kept, its comm_contention
  // solved again against each draw's fits.
  const LinkGamma* link_gamma = nullptr;
};

struct PredictionInterval {
  double p10_s = 0, p90_s = 0;  // of the predicted total over the draws
  int draws = 0;                // 0: not computed
};

// One interval per cell. `base_state` is the profile's calibration state; its collectives
// refit must reproduce `base`'s link (else the profile was not built from it: throws
// ValidateError naming that). Throws ValidateError when the state has no collective sweep.
std::vector<PredictionInterval> calibration_noise(const model::Profile& base,
                                                  const calibrate::CalibrationState& base_state,
                                                  const std::vector<calibrate::CalibrationState>& link_states,
                                                  const std::vector<CellInputs>& cells, int draws = kCalibrationNoiseDraws,
                                                  uint64_t seed = 1);

// For `gcu validate`: reads the profile's calibration state (state_path) and the sweeps of
// the links whose own fits predicted a cell (LinkRate::state_path), and sets every cell's
// predicted_p10/p90 and calibration_draws. When the state is missing or does not match the
// profile, a note goes to `log` and the cells keep 0 (the noise test then uses the
// measurement's uncertainty alone).
void add_calibration_noise(const std::string& state_path, const model::Profile& profile,
                           const std::vector<LinkRate>& links, std::vector<CellResult>& cells, std::ostream& log);

}  // namespace gcu::validate
