// Link-rate measurement through the testbed (link_rate.h).
#include "validate/link_rate.h"

#include "model/units.h"
#include "simulate/error.h"
#include "util/output_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cmath>
#include <ostream>
#include <vector>

namespace gcu::validate {

namespace {

// Least-squares slope (s per byte) of a sweep's median times over its sizes >= min_bytes;
// 0 with fewer than two sizes or no positive slope.
double sweep_slope(const std::string& text, const std::string& kind, double min_bytes, int* world) {
  const auto st = nlohmann::json::parse(text);
  const auto& col = st.at("collectives");
  const auto& w = col.at("world");  // a whole number in range (a cast of 1e300 to int is undefined)
  if (!w.is_number_integer() || w.get<int64_t>() < 1 || w.get<int64_t>() > (1 << 20))
    throw ValidateError("the link sweep's 'collectives.world' is not a rank count: " + w.dump().substr(0, 40));
  *world = w.get<int>();
  std::vector<double> x, y;
  for (const auto& s : col.at("sweeps")) {
    if (s.at("kind").get<std::string>() != kind) continue;
    for (const auto& r : s.at("rows")) {
      const double b = r.at("bytes").get<double>();
      if (b < min_bytes) continue;
      x.push_back(b);
      y.push_back(r.at("median_s").get<double>());
    }
  }
  if (x.size() < 2) return 0;
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= double(x.size());
  my /= double(x.size());
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  if (!(sxx > 0)) return 0;
  const double slope = sxy / sxx;
  return slope > 0 && std::isfinite(slope) ? slope : 0;
}

// 0 (not measured) for a non-positive slope.
double gbps_of_beta(double beta_s_per_byte) { return beta_s_per_byte > 0 ? model::gbps_from_beta(beta_s_per_byte) : 0; }

}  // namespace

double allreduce_rate_gbps(const std::string& text, double min_bytes) {
  int p = 0;
  const double slope = sweep_slope(text, "allreduce", min_bytes, &p);  // s per byte of the per-rank message
  if (p < 2) return 0;
  return gbps_of_beta(slope * p / (2.0 * (p - 1)));
}

double allgather_rate_gbps(const std::string& text, double min_bytes) {
  int p = 0;
  const double slope = sweep_slope(text, "allgather", min_bytes, &p);  // s per byte of the gathered output
  if (p < 2) return 0;
  return gbps_of_beta(slope * p / (p - 1.0));
}

void read_link_sweep(LinkRate& lr, const std::string& state_path) {
  const std::string text = util::read_file(state_path);
  lr.measured_gbps = allreduce_rate_gbps(text);
  lr.measured_allgather_gbps = allgather_rate_gbps(text);
  lr.state_path = state_path;
}

int link_sweep_budget_s(const Link& link) {
  if (link.unlimited()) return kLinkSweepBudgetS;
  const double s = 30.0 / link.nominal_gbps;
  return static_cast<int>(std::lround(std::clamp(s, double(kLinkSweepBudgetS), 240.0)));
}

std::string link_stem(const std::string& out_dir, int ranks, const std::string& link_name) {
  return out_dir + "/links/r" + std::to_string(ranks) + "-" + link_name;
}

std::string link_probe_stem(const std::string& out_dir, int ranks, const std::string& link_name) {
  return link_stem(out_dir, ranks, link_name) + ".probe";
}

bool read_link_probe(LinkRate& lr, const std::string& stem) {
  try {
    for (int r = 0; r < 2; ++r) {
      const auto j = nlohmann::json::parse(util::read_file(stem + ".rank" + std::to_string(r)));
      const double g = j.at("rx_gbps").get<double>();
      if (!(g > 0) || !std::isfinite(g)) throw ValidateError("rx_gbps is not a positive number");
      lr.probed_rx_gbps[r] = g;
    }
  } catch (const std::exception& e) {
    lr.probed_gbps = 0;
    lr.probe_note = std::string("probe not read: ") + e.what();
    return false;
  }
  lr.probed_gbps = std::min(lr.probed_rx_gbps[0], lr.probed_rx_gbps[1]);
  lr.probe_path = stem;
  return true;
}

void measure_link_probe(LinkRate& lr, const Testbed& bed, const std::string& gcu, const std::string& script,
                        const std::string& out_dir, double seconds, std::ostream& log) {
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string stem = link_probe_stem(out_dir, lr.ranks, lr.link.name);
  std::error_code ec;
  std::filesystem::create_directories(out_dir + "/links", ec);
  for (int r = 0; r < 2; ++r) std::remove((stem + ".rank" + std::to_string(r)).c_str());
  const std::vector<std::string> a = bed.command(gcu, 2, {python, script, stem, std::to_string(seconds)});
  log << "gcu validate: probing link " << lr.link.name << " point to point (both directions, " << seconds << " s)"
      << std::flush;
  const ProcessResult r = run_process(a, stem + ".out", static_cast<int>(seconds) + 60);
  if (read_link_probe(lr, stem)) {
    log << ": " << lr.probed_gbps << " Gbit/s (" << lr.probed_rx_gbps[0] << " / " << lr.probed_rx_gbps[1] << ")\n";
  } else {
    lr.probe_note += " (exit " + std::to_string(r.exit_code) + ", " + stem + ".out)";
    log << ": " << lr.probe_note << "\n";
  }
}

LinkRate measure_link_rate(const Testbed& bed, const std::string& gcu, int ranks, const Link& link,
                           const std::string& out_dir, int threads, std::ostream& log, const std::string& backend) {
  LinkRate lr;
  lr.link = link;
  lr.ranks = ranks;
  const std::string stem = link_stem(out_dir, ranks, link.name);
  std::error_code ec;
  std::filesystem::create_directories(out_dir + "/links", ec);
  std::remove((stem + ".json.state.json").c_str());
  const int budget_s = link_sweep_budget_s(link);
  // 16 KiB-32 MiB per rank, every collective kind, each call after a 10 ms idle gap (as a
  // training step's calls follow idle time): the rate from 1 MiB up, the per-size fits for
  // --predict-rate link-fits (link_fits.h).
  const std::vector<std::string> a = bed.command(gcu, ranks, {gcu, "calibrate", "--model", "cnn", "--skip",
                     "compute,gamma,codecs,errors,codec-gradients,contention,convergence", "--min-bytes",
                     std::to_string(kLinkSweepMinBytes), "--max-bytes", std::to_string(kLinkSweepMaxBytes),
                     "--budget-s", std::to_string(budget_s), "--collective-gap-ms",
                     std::to_string(kLinkSweepGapMs), "--threads", std::to_string(threads), "--backend", backend,
                     "-o", stem + ".json"});
  log << "gcu validate: measuring link " << link.name << " (" << ranks << " ranks, collectives 16 KiB-32 MiB, " << budget_s << " s)"
      << std::flush;
  const ProcessResult r = run_process(a, stem + ".out", budget_s + 120);
  try {
    read_link_sweep(lr, stem + ".json.state.json");
  } catch (const std::exception& e) {
    lr.note = std::string("not measured: ") + e.what() + " (exit " + std::to_string(r.exit_code) + ", " + stem + ".out)";
  }
  if (lr.measured_gbps > 0)
    log << ": " << lr.measured_gbps << " Gbit/s" << (link.unlimited() ? "" : " (asked " + link.name + ")")
        << (lr.measured_allgather_gbps > 0 ? "; all-gather " + std::to_string(lr.measured_allgather_gbps) + " Gbit/s" : "")
        << "\n";
  else
    log << ": " << (lr.note.empty() ? "no usable sizes" : lr.note) << "\n";
  return lr;
}

}  // namespace gcu::validate
