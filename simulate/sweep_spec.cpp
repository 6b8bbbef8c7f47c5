// Sweep and scheme-list parsing (sweep_spec.h).
#include "simulate/sweep_spec.h"

#include "simulate/error.h"
#include "util/text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gcu::simulate {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t i = s.find(sep, pos);
    out.push_back(trim(s.substr(pos, i == std::string::npos ? std::string::npos : i - pos)));
    if (i == std::string::npos) break;
    pos = i + 1;
  }
  return out;
}

double number(const std::string& s, const std::string& context) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw SimulateError(context + ": " + util::quote(s, 60) + " is not a finite number");
  return v;
}

const char* kForms = "a list (8,16,32) or a range A:B:N (N evenly spaced points, e.g. 1:40:40) or A:B:N:log";

}  // namespace

const char* sweep_axis_name(SweepAxis a) {
  switch (a) {
    case SweepAxis::Bandwidth: return "bandwidth_gbps";
    case SweepAxis::Gpus: return "gpus";
    case SweepAxis::Nodes: return "nodes";
    case SweepAxis::BatchSize: return "batch_size";
    case SweepAxis::ComputeSpeedup: return "compute_speedup";
  }
  return "?";
}

const char* sweep_axis_label(SweepAxis a) {
  switch (a) {
    case SweepAxis::Bandwidth: return "inter-node bandwidth (Gbps)";
    case SweepAxis::Gpus: return "GPUs";
    case SweepAxis::Nodes: return "nodes";
    case SweepAxis::BatchSize: return "per-GPU batch size (samples)";
    case SweepAxis::ComputeSpeedup: return "compute speed-up (x)";
  }
  return "?";
}

bool sweep_axis_is_integer(SweepAxis a) {
  return a == SweepAxis::Gpus || a == SweepAxis::Nodes || a == SweepAxis::BatchSize;
}

SweepAxis parse_sweep_axis(const std::string& name) {
  const std::string n = trim(name);
  if (n == "bandwidth_gbps" || n == "bandwidth" || n == "bw") return SweepAxis::Bandwidth;
  if (n == "gpus") return SweepAxis::Gpus;
  if (n == "nodes") return SweepAxis::Nodes;
  if (n == "batch_size" || n == "batch") return SweepAxis::BatchSize;
  if (n == "compute_speedup" || n == "speedup") return SweepAxis::ComputeSpeedup;
  throw SimulateError("unknown sweep axis '" + n +
                      "' (known: bandwidth_gbps, gpus, nodes, batch_size, compute_speedup)");
}

std::vector<double> parse_values(const std::string& text, bool integers) {
  const std::string t = trim(text);
  if (t.empty()) throw SimulateError("sweep values: empty; expected " + std::string(kForms));
  std::vector<double> out;
  if (t.find(':') != std::string::npos) {
    const auto parts = split(t, ':');
    if (parts.size() < 3 || parts.size() > 4 || (parts.size() == 4 && parts[3] != "log" && parts[3] != "lin"))
      throw SimulateError("sweep range " + util::quote(t, 80) + ": expected A:B:N or A:B:N:log (N = number of points)");
    const double a = number(parts[0], "sweep range " + util::quote(t, 80) + std::string());
    const double b = number(parts[1], "sweep range " + util::quote(t, 80) + std::string());
    const double nd = number(parts[2], "sweep range " + util::quote(t, 80) + std::string());
    if (nd < 1 || nd != std::floor(nd))
      throw SimulateError("sweep range " + util::quote(t, 80) + ": N = " + parts[2] +
                          " must be a whole number of points >= 1 (it is a count, not a step)");
    if (nd > kMaxSweepPoints)
      throw SimulateError("sweep range " + util::quote(t, 80) + ": N = " + parts[2] + " points is more than the limit of " +
                          std::to_string(kMaxSweepPoints));
    const int n = static_cast<int>(nd);
    if (n == 1 && a != b) throw SimulateError("sweep range " + util::quote(t, 80) + ": N = 1 point needs A == B");
    const bool log = parts.size() == 4 && parts[3] == "log";
    if (log && (a <= 0 || b <= 0)) throw SimulateError("sweep range " + util::quote(t, 80) + ": log spacing needs A, B > 0");
    for (int i = 0; i < n; ++i) {
      const double f = n == 1 ? 0.0 : double(i) / (n - 1);
      double v = log ? std::exp(std::log(a) + f * (std::log(b) - std::log(a))) : a + f * (b - a);
      if (i == n - 1) v = b;  // exact end point
      out.push_back(v);
    }
  } else {
    const auto items = split(t, ',');
    if (items.size() > kMaxSweepPoints)
      throw SimulateError("sweep values: " + std::to_string(items.size()) + " values is more than the limit of " +
                          std::to_string(kMaxSweepPoints));
    for (const auto& s : items) out.push_back(number(s, "sweep values " + util::quote(t, 80) + std::string()));
  }
  if (integers) {
    for (double& v : out) {
      const double r = std::round(v);
      if (std::fabs(v - r) > 1e-9 * std::max(1.0, std::fabs(v)))
        throw SimulateError("sweep values " + util::quote(t, 80) + ": " + std::to_string(v) +
                            " is not a whole number (this axis takes integers)");
      v = r;
      if (v > kMaxSweepInteger)
        throw SimulateError("sweep values " + util::quote(t, 80) + ": a value is above the limit of " +
                            std::to_string(static_cast<long long>(kMaxSweepInteger)) +
                            " for an axis of counts (GPUs, nodes, batch)");
    }
  }
  return out;
}

SweepSpec parse_sweep(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw SimulateError("sweep " + util::quote(text, 80) + ": expected AXIS=VALUES, e.g. bandwidth_gbps=1:40:40 or gpus=8,16,32");
  SweepSpec s;
  s.axis = parse_sweep_axis(text.substr(0, eq));
  s.values = parse_values(text.substr(eq + 1), sweep_axis_is_integer(s.axis));
  for (double v : s.values)
    if (!(v > 0))
      throw SimulateError("sweep " + util::quote(text, 80) + ": " + sweep_axis_name(s.axis) + " values must be > 0, got " +
                          std::to_string(v));
  return s;
}

std::vector<std::string> split_schemes(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    for (const auto& item : split(a, ',')) {
      if (item.empty()) continue;
      const bool continuation = item.find('=') != std::string::npos && item.find(':') == std::string::npos;
      if (continuation) {
        if (out.empty() || out.back().find(':') == std::string::npos)
          throw SimulateError("scheme list '" + a + "': parameter '" + item +
                              "' does not follow a scheme with parameters (e.g. topkc:k=0.01,chunk=256)");
        out.back() += "," + item;
      } else {
        out.push_back(item);
      }
    }
  }
  return out;
}

std::vector<double> parse_number_list(const std::string& text, const std::string& what) {
  std::vector<double> out;
  for (const auto& s : split(text, ',')) out.push_back(number(s, what));
  return out;
}

}  // namespace gcu::simulate
