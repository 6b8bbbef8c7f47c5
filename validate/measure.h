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
};

// Parses the text of a trainer log; throws ValidateError on a line that is not JSON, a
// missing header, or a header of another schema.
TrainLog parse_trainlog(const std::string& text, const std::string& file);

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
