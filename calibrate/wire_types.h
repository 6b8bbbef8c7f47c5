// The cost of a scheme's low-precision all-reduces that the float32 collective fits do not
// see. The model costs every collective from the profile's all-reduce fits by its BYTES,
// which calibrate measures with float32 buffers.
// On Gloo neither low-precision type is a float all-reduce of fewer bytes:
//  - float16 is reduced by the backend itself, element by element through software
//    half <-> float conversions inside the ring, with a fixed part per call as large as
//    the link's (4 ranks on 2 cores: ~4 ms). Measured as the calls' own time per bucket
//    size and, against float32 all-reduces of the same bytes, as a per-element extra: the
//    profile's `allreduce_floor`, which the model takes as
//    max(link time + per-element extra, floor) per call.
//  - LibTorch 1.13's Gloo widens bfloat16 to float (twice the bytes, which the profile's
//    cluster.allreduce_element_bytes says) and converts before and after the call: work
//    that adds to the call. Measured against float32 all-reduces of the same link bytes and
//    fitted per bucket element: added to the scheme's decode fit.
// Both timed through the trainer's own communicator (PgCommunicator) on the launched ranks,
// each call after a barrier, a call costing what its slowest rank measured. Collective:
// every rank calls it with the same arguments.
#pragma once

#include "calibrate/group.h"
#include "model/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct WireExtra {
  bool applies = false;          // the scheme has an all-reduce of a non-float32 type
  // Widened types: extra seconds per bucket element (>= 0), for the decode fit.
  double per_element_s = 0;
  // Types the backend reduces itself: the calls' time per bucket size (mean over the timed
  // calls, slowest rank) and their per-element extra over f32 of the same bytes (median
  // per size, slope through the origin), for CodecFit::allreduce_floor.
  std::optional<model::CollectiveFloor> floor;
  std::vector<int64_t> sizes;    // bucket elements measured
  std::vector<double> extra_s;   // widened calls: median extra per size over f32 of the same link bytes
  std::string note;              // e.g. "f16 all-reduce floor: 4.1 ms at 65536 ... 66 ms at 4194304 elements"
};

// Bucket sizes (elements) measured by default: the floor is interpolated between them.
std::vector<int64_t> wire_sizes();

// `sizes` are bucket element counts; `reps` timed calls per size (after one warm-up).
WireExtra measure_wire_extra(Group& g, const std::string& spec, const std::vector<int64_t>& sizes, int reps = 15);

}  // namespace gcu::calibrate
