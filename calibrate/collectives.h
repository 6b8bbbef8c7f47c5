// The collective sweep (docs/calibrate.md): all-reduce, all-gather, reduce-scatter and broadcast
// over message sizes from a few bytes to max_bytes, across the launched ranks, timed like
// nccl-tests (warm-up calls discarded; every timed call starts after a barrier; a call's
// time is the slowest rank's). Protocol against a busy machine (docs/calibrate.md):
//   - the timed calls of all sizes are interleaved: rounds over the sizes, each round in
//     a fresh random order (same seed on every rank), one call per size per round, so a
//     slow phase of the machine spreads over many sizes instead of shifting one;
//   - a call during which any rank was preempted (an involuntary context switch of the
//     process, getrusage) is marked disturbed; a size's statistics use its undisturbed
//     calls when there are at least max(3, n/5) of them, else all calls;
//   - sizes step by `factor` below `fine_from_bytes` and by `fine_factor` above, so that
//     the large sizes (the beta fit, protocol switches) have enough points;
//   - with idle_gap_s > 0, every call (warm-up and timed) starts after that long idle, as
//     a training step's collectives do;
//   - with free_running, the timed calls run without barriers (SweepOptions::free_running).
// Torch-free header; measures through Group (group.h).
#pragma once

#include "calibrate/collective_fit.h"
#include "calibrate/group.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct SweepOptions {
  int64_t min_bytes = 4;
  int64_t max_bytes = 64LL << 20;  // nccl-tests size (all-gather: output bytes)
  double factor = 2;               // size step
  int64_t fine_from_bytes = 1 << 20;  // from here on, steps of fine_factor
  double fine_factor = 1.4142135623730951;
  int warmup = 2;                  // calls discarded per size
  int min_iters = 5;
  int min_iters_large = 25;        // timed calls at least, from fine_from_bytes on (the beta fit)
  double target_s_per_large_size = 2.0;  // the same target from fine_from_bytes on
  int max_iters = 100;
  uint64_t seed = 1;               // order of the sizes within each round
  double target_s_per_size = 0.25; // timed calls per size ~ this / (time of one call)
  double budget_s = 0;             // > 0: stop growing sizes when the sweep has used this
  // Idle time (a sleep, after the barrier) before each call: a training step leaves the
  // communication threads idle through forward and backward, and on a VM an idle vCPU is
  // halted and wakes slowly; back-to-back calls (0, nccl-tests style) never see that cost.
  double idle_gap_s = 0;
  // Spend the gap busy instead of asleep: a loop that reads and writes a buffer the size of
  // a last-level cache (as forward and backward keep the core busy and evict the
  // communication's state), so the vCPU is not halted before the call.
  bool busy_gap = false;
  // Free-running timed calls, as a training step's (entered together they cost less): no
  // barrier before a timed call; each rank spends idle_gap_s x U(0.5, 1.5) busy (its own
  // random stream) and then calls, so the ranks arrive at different times and the first to
  // leave a call compute beside the last still in it. A call's time is then the LAST
  // arriving rank's (the smallest over the ranks), not the slowest's. Warm-up calls stay
  // aligned.
  bool free_running = false;
  std::vector<compress::CollectiveKind> kinds = {
      compress::CollectiveKind::AllReduce, compress::CollectiveKind::AllGather,
      compress::CollectiveKind::ReduceScatter, compress::CollectiveKind::Broadcast};
};

using Progress = std::function<void(const std::string&)>;

// Runs on every rank (collective). Unsupported collectives (Gloo in LibTorch 1.13 has no
// reduce-scatter) come back with supported = false and a note. Rows are not fitted.
std::vector<CollectiveSweep> sweep_collectives(Group& g, const SweepOptions& opt,
                                               const Progress& progress = {});

// Sizes of the sweep: min_bytes, min_bytes*factor, ..., fine_from_bytes, then steps of
// fine_factor up to max_bytes, each rounded to a multiple of 4 * world (so that per-rank
// and per-chunk counts are whole floats). Duplicates after rounding are dropped.
std::vector<int64_t> sweep_sizes(const SweepOptions& opt, int world);

// The gap that precedes a call in training: asleep, or busy reading and writing a 16 MiB
// buffer (SweepOptions::busy_gap). Local to the calling rank.
void spend_gap(double gap_s, bool busy);

}  // namespace gcu::calibrate
