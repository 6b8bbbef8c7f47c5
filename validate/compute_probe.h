// Compute probes (docs/validation.md §2, "Compute probes"): the calibration's compute step
// timed again inside the grid, once per round at a random place among the cells, so the
// predictions use the compute the machine delivered while the grid ran.
//
// On a shared machine the speed moves by 10-25% within an hour (recorded ResNet-18 grids:
// the cells' forward ran 1.23x the calibration's one hour, the backward 0.90x the next).
// The speed adjustment (speed_adjust.h) removes the rounds' movement around the grid's own
// mean; what it cannot remove is the distance between that mean and the calibration,
// which moves every prediction by the same share of compute. A probe is
//   gcu calibrate --skip <every step but compute> (the calibration's own arguments)
// in the calibration's placement (its ranks, the unshaped link): calibrate's code, not the
// trainer's numbers, so a real difference between how calibrate and the trainer time
// compute still shows as a model error. The profile's compute per batch size is then the
// median over the probes of forward, backward and optimizer (the ready times scaled with
// the backward); everything else (gamma, collectives, codecs) stays the calibration's.
#pragma once

#include "model/profile.h"
#include "validate/grid.h"

#include <string>
#include <vector>

namespace gcu::validate {

struct ValidateOptions;

struct ProbeEntry {
  int batch_size = 0;
  double forward_s = 0, backward_s = 0, optimizer_s = 0;  // calibrate's figures (its fit statistic)
};

// One probe run (a round's).
struct ComputeProbe {
  int round = 0;             // 0-based
  bool ok = false;
  std::string message;       // why not ok
  std::string state_path;    // its calibrate state file
  double wall_s = 0;
  std::vector<ProbeEntry> entries;
};

// Per batch size: the calibration's compute, the probes' median, their ratio.
struct ProbedCompute {
  int batch_size = 0;
  int probes = 0;            // ok probes with this batch size (0: the calibration's compute kept)
  ProbeEntry calibrated, probed;
  double forward_ratio = 1, backward_ratio = 1, optimizer_ratio = 1;  // probed / calibrated
  double compute_ratio = 1;  // (forward + backward + optimizer) probed / calibrated
  double backward_spread = 0;  // (max - min) / median of the probes' backward (0: one probe)
};

struct ComputeProbes {
  bool used = false;          // the predictions use the probes' compute
  std::string note;           // why not, or what was done
  std::vector<ComputeProbe> probes;
  std::vector<ProbedCompute> batches;
};

// The state file of round `round`'s probe in `out_dir`.
std::string probe_state_path(const std::string& out_dir, int round);

// The `gcu calibrate` arguments of one probe (without the testbed's prefix): the grid's
// model and batch sizes, the calibration's data and backend and --calibrate-arg's, every
// step but compute skipped, writing `output` (the state beside it).
std::vector<std::string> probe_args(const ValidateOptions& o, const std::string& output);

// Reads a probe's calibrate state file into p.entries (p.ok, or p.message naming the file
// and the problem: unreadable, no compute step, a non-finite or non-positive time).
void read_probe_state(ComputeProbe& p);

// `base` with each compute entry replaced by the median of the ok probes of its batch size
// (forward, backward, optimizer; ready_s scaled by the backward's ratio); entries no probe
// timed stay as they are. `out` gets the per-batch comparison and used/note. Pure.
model::Profile with_probed_compute(const model::Profile& base, ComputeProbes& out);

}  // namespace gcu::validate
