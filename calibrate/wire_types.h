// The cost of a scheme's low-precision all-reduces that the model does not see
// (docs/validation.md, cause 1). The model costs every collective from the profile's
// all-reduce fits by its BYTES, which calibrate measures with float32 buffers. On Gloo a
// float16 all-reduce is not a float all-reduce of half the bytes: the ring's reduction
// converts every element half -> float -> half in software (2-5x slower per element than a
// float sum), and LibTorch 1.13's Gloo widens bfloat16 to float (twice the bytes).
// measure_wire_extra() times, through the trainer's own communicator (PgCommunicator), the
// scheme's non-float32 all-reduce calls against float32 all-reduces of the same bytes, on
// the launched ranks, and fits the difference per bucket element. calibrate adds it to the
// scheme's decode fit ("the codec includes it"), so `none`/fp16 comparisons come out right
// on an unshaped link. Collective: every rank calls it with the same arguments.
#pragma once

#include "calibrate/group.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct WireExtra {
  bool applies = false;          // the scheme has an all-reduce of a non-float32 type
  double per_element_s = 0;      // extra seconds per bucket element (>= 0)
  std::vector<int64_t> sizes;    // bucket elements measured
  std::vector<double> extra_s;   // median extra per size (slowest rank)
  std::string note;              // e.g. "f16 all-reduce: +12.1 ns/element over f32 of the same bytes"
};

// `sizes` are bucket element counts; `reps` timed pairs per size (after one warm-up pair).
WireExtra measure_wire_extra(Group& g, const std::string& spec, const std::vector<int64_t>& sizes, int reps = 5);

}  // namespace gcu::calibrate
