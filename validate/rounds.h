// The rounds of a grid (validate.cpp's run_validate): every cell run once per round on the
// testbed, each round in a fresh random order, with the round's compute probe among them;
// with --reuse, the recorded logs read back instead. Internal to gcu_validate.
#pragma once

#include "validate/compute_probe.h"
#include "validate/runner.h"
#include "validate/validate.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace gcu::validate {

// --reuse: what the logs do not hold, from the earlier report, by cell id: the load
// average, involuntary context switches and wall time of the earlier run.
struct PriorCell {
  double load = 0;
  long nivcsw = -1;
  double wall_s = 0;
};
using PriorLoads = std::map<int, PriorCell>;

// --reuse: the load and context switches of the earlier run, from its report (by cell id).
PriorLoads prior_loads(const ValidateOptions& o);

// What the rounds loop carries from cell to cell.
struct RoundsRun {
  const ValidateOptions& o;
  const std::vector<Cell>& cells;
  Testbed& bed;
  const PriorLoads& prior_load;
  std::vector<CellResult>& res;
  std::vector<double>& load_sum;
  std::ostream& log;
  std::vector<ComputeProbe>& probes;
  int total_runs = 0;
  int run_no = 0;
};

// All rounds over all cells, each round in its own random order; the round's compute
// probe at a random place among them (--compute-probes on).
void run_rounds(RoundsRun& s);

}  // namespace gcu::validate
