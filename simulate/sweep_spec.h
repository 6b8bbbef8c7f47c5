// Parsing of what the user types for a sweep and for a list of schemes.
//
// Sweep: AXIS=VALUES
//   AXIS   bandwidth_gbps (inter-node, Gbps; alias bandwidth), gpus (total GPUs: whole nodes,
//          or fewer GPUs than one node on one node), nodes, batch_size (per GPU; alias
//          batch), compute_speedup (alias speedup; encode/decode speeds up too)
//   VALUES a list "8,16,32,64", or a range "A:B:N" = N evenly spaced points from A to B
//          inclusive (1:40:40 = 1, 2, ..., 40), or "A:B:N:log" = N log-spaced points.
//          (N is a COUNT of points, never a step.)
// Schemes: comma-separated specs; a comma followed by key=value without a ':' continues
// the previous scheme's parameters, so "none,topkc:k=0.01,chunk=256,fp16" is three
// schemes. Repeated options are concatenated.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gcu::simulate {

enum class SweepAxis { Bandwidth, Gpus, Nodes, BatchSize, ComputeSpeedup };

struct SweepSpec {
  SweepAxis axis = SweepAxis::Bandwidth;
  std::vector<double> values;
};

const char* sweep_axis_name(SweepAxis a);   // "bandwidth_gbps", "gpus", ...
const char* sweep_axis_label(SweepAxis a);  // "inter-node bandwidth (Gbps)", ...
bool sweep_axis_is_integer(SweepAxis a);

// Throws SimulateError naming the offending text and showing the accepted forms.
// Limits (docs/robustness.md): points of one sweep, and the largest value of an axis of
// counts (GPUs, nodes, per-GPU batch), so that derived counts never wrap around.
inline constexpr size_t kMaxSweepPoints = 10'000;
inline constexpr double kMaxSweepInteger = 1'000'000;

SweepAxis parse_sweep_axis(const std::string& name);
std::vector<double> parse_values(const std::string& text, bool integers = false);
SweepSpec parse_sweep(const std::string& text);

std::vector<std::string> split_schemes(const std::vector<std::string>& args);

// "1.5,2,3" -> {1.5, 2, 3}; throws SimulateError naming `what` on a bad number.
std::vector<double> parse_number_list(const std::string& text, const std::string& what);

}  // namespace gcu::simulate
