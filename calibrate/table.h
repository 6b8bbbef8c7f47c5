// The nccl-tests-style table of a collective sweep (one measurement convention
// end to end): size, count, type, time, algbw and busbw in GB/s (1e9 BYTES per second, as
// nccl-tests prints them; the profile stores Gbps = 1e9 bits), plus the spread of the
// timings and the fitted time with its relative error. Bandwidth factors come from
// model/collectives.h (busbw_factor: all-reduce 2(p-1)/p, all-gather and reduce-scatter
// (p-1)/p, broadcast 1). No LibTorch.
#pragma once

#include "calibrate/stats.h"
#include "compressors/compressor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gcu::calibrate {

// One measured message size of one collective. `bytes` is what nccl-tests calls size:
// the per-rank input of all-reduce, reduce-scatter and broadcast, the OUTPUT (p x per-rank)
// of all-gather.
struct SweepRow {
  int64_t bytes = 0;
  int64_t count = 0;  // elements (of `type`) in `bytes`
  std::string type = "float";
  Summary time_s;     // per-call time over the timed iterations (warm-up discarded;
                      // the undisturbed calls when enough, see collectives.h)
  int64_t calls = 0;      // timed calls made (0: unknown, e.g. an old state file)
  int64_t disturbed = 0;  // of which some rank was preempted during the call
  double fit_s = 0;   // the fitted time at this size (0: not fitted yet)
};

// nccl-tests bandwidths of one row, GB/s (bytes).
double algbw_GBps(const SweepRow& r);
double busbw_GBps(compress::CollectiveKind k, int world, const SweepRow& r);

// The table as text, one header block then one line per row:
// #  size(B)  count  type  time(us)  mean(us)  p10(us)  p90(us)  algbw(GB/s)  busbw(GB/s)  fit(us)  err(%)  calls(dist.)
// time is the median; err compares the fit with the row's `statistic` (mean, median, p10 or
// min: the one the fit used); calls(dist.) = timed calls (of which disturbed).
std::string format_table(compress::CollectiveKind k, int world, const std::vector<SweepRow>& rows,
                         const std::string& statistic = "median");

}  // namespace gcu::calibrate
