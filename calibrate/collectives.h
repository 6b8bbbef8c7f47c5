// The collective sweep (SPEC §3): all-reduce, all-gather, reduce-scatter and broadcast
// over message sizes from a few bytes to max_bytes, across the launched ranks, timed like
// nccl-tests (warm-up calls discarded; every timed call starts after a barrier; a call's
// time is the slowest rank's). Torch-free header; measures through Group (group.h).
#pragma once

#include "calibrate/collective_fit.h"
#include "calibrate/group.h"

#include <functional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct SweepOptions {
  int64_t min_bytes = 4;
  int64_t max_bytes = 64LL << 20;  // nccl-tests size (all-gather: output bytes)
  double factor = 2;               // size step
  int warmup = 2;                  // calls discarded per size
  int min_iters = 5;
  int max_iters = 40;
  double target_s_per_size = 0.25; // timed calls per size ~ this / (time of one call)
  double budget_s = 0;             // > 0: stop growing sizes when the sweep has used this
  std::vector<compress::CollectiveKind> kinds = {
      compress::CollectiveKind::AllReduce, compress::CollectiveKind::AllGather,
      compress::CollectiveKind::ReduceScatter, compress::CollectiveKind::Broadcast};
};

using Progress = std::function<void(const std::string&)>;

// Runs on every rank (collective). Unsupported collectives (Gloo in LibTorch 1.13 has no
// reduce-scatter) come back with supported = false and a note. Rows are not fitted.
std::vector<CollectiveSweep> sweep_collectives(Group& g, const SweepOptions& opt,
                                               const Progress& progress = {});

// Sizes of the sweep: min_bytes, min_bytes*factor, ..., up to max_bytes, each rounded to
// a multiple of 4 * world (so that per-rank and per-chunk counts are whole floats).
std::vector<int64_t> sweep_sizes(const SweepOptions& opt, int world);

}  // namespace gcu::calibrate
