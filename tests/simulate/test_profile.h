// A tiny, valid profile for the simulate/ tests: 2 nodes x 2 GPUs, three tensors
// (10x10 weight, 10 bias, 5x10 weight) in backward order, two batch sizes, cost fits for
// fp16 and topk:k=0.1, convergence figures for topk. Tests change fields of the JSON to
// provoke one error at a time.
#pragma once

#include "model/profile_json.h"

namespace gcu::test {

model::Json tiny_profile_json();

// tiny_profile_json() read as a Profile.
model::Profile tiny_profile();

}  // namespace gcu::test
