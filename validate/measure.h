// What a validation cell compares, component by component, and how the trainer's
// JSON-lines log (gcu.trainlog/1, docs/trainer-log-schema.md) is read into it.
// The mapping to the model's IterationResult is in predict.h; both are documented in
// docs/validate-schema.md ("Components").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gcu::validate {

enum class Component { Forward, Backward, Exposed, Encode, Decode, Collective, Optimizer, Data, Total };
inline constexpr int kComponents = 9;
// "forward", "backward", "exposed_comm", "encode", "decode", "collective", "optimizer",
// "data", "total"
const char* component_name(Component c);
// The trainer log field of each component ("forward_s", ..., "comm_exposed_s", "total_s").
const char* trainlog_field(Component c);

// Seconds per component for one iteration (or one prediction).
using Breakdown = std::array<double, kComponents>;
inline double& at(Breakdown& b, Component c) { return b[size_t(c)]; }
inline double at(const Breakdown& b, Component c) { return b[size_t(c)]; }

struct TrainLog {
  std::string model, scheme, mode;  // from the header
  int world_size = 0, batch_per_rank = 0, threads = 0;
  std::string gloo_interfaces;
  std::vector<Breakdown> iters;      // measured iterations only (warm-up dropped)
  double wire_bytes_per_iter = 0;    // from the header
  bool complete = false;             // a summary line was seen
  // Set by merge_rank_logs: how many ranks' logs were merged (1: rank 0's alone), and per
  // measured iteration how long the other ranks waited in their collectives for that
  // iteration's slowest rank (mean over the ranks of collective_s minus the slowest's).
  int rank_logs = 1;
  std::vector<double> straggler_wait_s;
};

// Parses the text of a trainer log; throws ValidateError on a line that is not JSON, a
// missing header, or a header of another schema.
TrainLog parse_trainlog(const std::string& text, const std::string& file);

// One run's logs of every rank (gcu train --log-all-ranks), merged as the model sees a
// synchronous step. Each iteration waits for ITS slowest rank, and calibrate gives the
// model that rank's compute; rank 0's own forward and backward are shorter, and its
// collective_s holds the wait for the slowest. So per
// measured iteration (the logs aligned by position), every component is the one of the
// rank with the largest forward + backward + optimizer, as calibrate picks it, except the
// total: the mean over the ranks (the run's time per iteration, the same on every rank up
// to where each draws its iteration boundary). Throws ValidateError when the logs are of
// different runs (scheme, mode, world size, batch) or disagree on the iteration count.
TrainLog merge_rank_logs(const std::vector<TrainLog>& ranks);

// The logs of one run written with --log `log` by `world` ranks: <log>.rank0 ... merged by
// merge_rank_logs when <log>.rank0 exists, else <log> alone (rank 0's: runs without
// --log-all-ranks, e.g. older recordings under --reuse). `files` gets the paths read.
TrainLog read_run_logs(const std::string& log, int world, std::vector<std::string>* files);

struct Spread {
  double median = 0, mean = 0, p10 = 0, p90 = 0;
  int n = 0;
  // The compared statistic: "mean" (time per iteration over the run: what throughput and
  // time-to-accuracy pay) or "median".
  double of(const std::string& statistic) const { return statistic == "median" ? median : mean; }
};
// Linear-interpolated percentiles (numpy's default); n = 0 gives zeros.
Spread spread_of(std::vector<double> v);

}  // namespace gcu::validate
