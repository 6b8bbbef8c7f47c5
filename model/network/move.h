// A measured profile's compute moved to another GPU, layer by layer: the first choice for
// a model's compute on a GPU it was not measured on (docs/described.md "Moving a measured
// profile"). The network (network.h) that has the profile's tensors says what each layer
// does; the roofline (roofline.h) on both GPUs says how much faster each layer runs:
//   moved interval = measured interval x (roofline on `to`) / (roofline on `from`)
// where an interval is the backward time between two consecutive layers' gradients
// becoming ready (measured ready_s), holding that layer and the parameterless layers run
// just before it in backward. A compute-bound layer moves by the ratio of peak FLOP/s, a
// memory-bound one by the ratio of memory bandwidths, a launch-bound one hardly moves; mfu
// and efficiency cancel when a layer is bound the same way on both GPUs. The forward moves
// by the ratio of the forward rooflines, the optimizer by the ratio of memory bandwidths,
// the data time not at all (the host's). Without measured ready times, backward moves by
// the ratio of the backward rooflines and ready times stay proportional.
#pragma once

#include "model/hardware.h"
#include "model/network/network.h"
#include "model/network/roofline.h"
#include "model/profile.h"

#include <string>
#include <vector>

namespace gcu::model::net {

struct MoveOptions {
  Precision from_precision = Precision::FP32;  // what the measured run computed in
  Precision to_precision = Precision::FP32;    // what the moved one computes in
  RooflineOptions roofline;                    // mfu, efficiency, launch (batch set per entry)
};

struct MovedCompute {
  std::vector<ComputeEntry> compute;           // every entry of the model, moved
  std::vector<std::string> assumptions;        // what the move assumed
  double backward_factor = 1;                  // moved / measured backward, first entry
  int compute_bound_layers = 0, memory_bound_layers = 0;  // on `to`, first entry
};

// Throws NetworkError when the network's tensors (names, shapes, backward order) are not
// the model's (naming the first difference), or a GPU has no rate at a precision.
MovedCompute move_compute(const Model& m, const Network& n, const hw::Gpu& from, const hw::Gpu& to,
                          const MoveOptions& o);

// The catalog GPU a profile's provenance.device names: the entry whose name or alias
// appears in it (case-insensitive, the longest match). Throws HardwareError when none does.
const hw::Gpu& gpu_named_in(const hw::Catalog& c, const std::string& device);

}  // namespace gcu::model::net
