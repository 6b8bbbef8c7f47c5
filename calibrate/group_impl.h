// Private to calibrate/: the c10d objects behind Group (see group.h).
#pragma once

#include "calibrate/group.h"
#include "trainer/runtime/process_group.h"

#include <torch/types.h>

namespace gcu::calibrate {

using Backend = trainer::compat::CollectiveBackend;

struct GroupImpl {
  trainer::DistContext ctx;             // the trainer's rendezvous store and Gloo group
  c10::intrusive_ptr<Backend> pg;       // foreground collectives (ctx.gloo, or NCCL)
  c10::intrusive_ptr<Backend> pg_bg;    // background traffic (gamma step)
  torch::Device device = torch::kCPU;   // where collective buffers live
};

}  // namespace gcu::calibrate
