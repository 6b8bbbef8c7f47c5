// Private to calibrate/: the c10d objects behind Group (see group.h).
#pragma once

#include "calibrate/group.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/types.h>

namespace gcu::calibrate {

struct GroupImpl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;        // foreground collectives
  c10::intrusive_ptr<c10d::ProcessGroup> pg_bg;     // background traffic (gamma step)
  torch::Device device = torch::kCPU;               // where collective buffers live
};

}  // namespace gcu::calibrate
